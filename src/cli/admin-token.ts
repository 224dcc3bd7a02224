/**
 * `npm run admin-token [-- <token name>]`: mints an admin API token straight in the database
 * that DATABASE_URL or DATABASE_FILE names (configured as for `npm start`) and prints it once.
 * The way back for an operator who has the database but no token that can administer Pennon;
 * a running server takes the new token at once. Named `admin` (or `admin-2`, … when taken)
 * unless a name is given; its `api-token-created` event names the system as the actor.
 */
import { ConfigError } from '../config.ts'
import { openServerDatabase } from './cli-database.ts'
import { createTokenService } from '../features/api-tokens/token-service.ts'
import { environmentExists } from '../features/environments/environment-store.ts'
import { lockSigningInAdmins } from '../features/users/user-store.ts'

const USAGE = 'usage: npm run admin-token [-- <token name>]   (DATABASE_URL or DATABASE_FILE as for npm start)'

/** The name asked for, held to the API's rules for a token name (1 to 255 characters, printable). */
/** C0 controls and DEL: a name must print as itself. */
function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x20 || code === 0x7f) return true
  }
  return false
}

function tokenName(args: readonly string[]): string | undefined {
  if (args.length === 0) return undefined
  const name = args[0]!.trim()
  if (args.length > 1 || name === '' || name.length > 255 || hasControlCharacter(name)) {
    throw new ConfigError(`a token name is one argument of 1 to 255 printable characters\n${USAGE}`)
  }
  return name
}

async function main(): Promise<number> {
  const args = process.argv.slice(2)
  if (args[0] === '--help' || args[0] === '-h') {
    process.stdout.write(`${USAGE}\n`)
    return 0
  }
  let name: string | undefined
  try {
    name = tokenName(args)
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    process.stderr.write(`pennon admin-token: ${error.message}\n`)
    return 1
  }
  const opened = await openServerDatabase('admin-token')
  if (!opened) return 1
  const { config, database } = opened
  try {
    const minted = await createTokenService({ db: database.db, lockSigningInAdmins, environmentExists }).mintAdminToken(name)
    process.stdout.write(
      `Created admin token "${minted.tokenName}". It is shown only this once:\n\n    ${minted.secret}\n\n` +
        `Use it as: curl -H "Authorization: ${minted.secret}" http://127.0.0.1:${config.port}/api/admin/projects\n`,
    )
    return 0
  } finally {
    await database.close()
  }
}

process.exitCode = await main()
