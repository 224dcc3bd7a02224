/**
 * `MIGRATE_FROM_TOKEN=… MIGRATE_TO_TOKEN=… npm run migrate -- --from <url> --to <url>`: copies
 * everything an Unleash (or Pennon) server's admin API shows into a Pennon through Pennon's admin
 * API (audited, on either database), writing only what differs; prints what it created, updated
 * and left unchanged. `--verify` instead compares what both servers serve, flag by flag, with real
 * SDK clients and the frontend API: exit code 0 only when they agree. The admin tokens come from
 * the environment or a file, never the command line, and are never printed. docs/migration.md.
 */
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { type AdminClient, ApiError, createAdminClient } from '../features/migration/admin-client.ts'
import { runMigration, TOKENS_NOTE } from '../features/migration/migration.ts'
import { changedNothing, formatSummary } from '../features/migration/summary.ts'
import { formatVerification, runVerification, verdict } from '../features/migration/verify.ts'

const USAGE = `usage: MIGRATE_FROM_TOKEN=<admin token> MIGRATE_TO_TOKEN=<admin token> npm run migrate -- --from <source url> --to <pennon url>
         (or --from-token-file <path> and --to-token-file <path>, files holding the tokens)
         [--verify [--environment <name>]… [--contexts <file.json>] [--generated <n>] [--strict]
                   [--from-client-token <env>=<secret>]… [--to-client-token <env>=<secret>]…
                   [--from-frontend-token <env>=<secret>]… [--to-frontend-token <env>=<secret>]…]`

const options = {
  from: { type: 'string' },
  to: { type: 'string' },
  'from-token-file': { type: 'string' },
  'to-token-file': { type: 'string' },
  // Refused (see adminToken): declared so that they are named in the refusal, not as unknown options.
  'from-token': { type: 'string' },
  'to-token': { type: 'string' },
  verify: { type: 'boolean' },
  environment: { type: 'string', multiple: true },
  contexts: { type: 'string' },
  generated: { type: 'string' },
  strict: { type: 'boolean' },
  'from-client-token': { type: 'string', multiple: true },
  'to-client-token': { type: 'string', multiple: true },
  'from-frontend-token': { type: 'string', multiple: true },
  'to-frontend-token': { type: 'string', multiple: true },
  help: { type: 'boolean', short: 'h' },
} as const

const SIDES = {
  from: { server: 'source', variable: 'MIGRATE_FROM_TOKEN', file: 'from-token-file', flag: 'from-token' },
  to: { server: 'target', variable: 'MIGRATE_TO_TOKEN', file: 'to-token-file', flag: 'to-token' },
} as const

class UsageError extends Error {}

type Values = ReturnType<typeof parseArgs<{ options: typeof options; strict: true; allowPositionals: false }>>['values']

/**
 * A server's admin token: its environment variable, or the file its option names (trimmed).
 * Never from the command line, where every user of the machine reads it (`ps`) and npm prints it
 * (the command it runs): `--from-token`/`--to-token` are refused, naming what to use instead.
 */
function adminToken(side: keyof typeof SIDES, values: Values, env: Record<string, string | undefined>): string {
  const { server, variable, file, flag } = SIDES[side]
  if (values[flag] !== undefined) {
    throw new UsageError(
      `--${flag} is refused: a token on the command line is visible to every user of this machine (ps) and in logs (npm prints the command). ` +
        `Set ${variable} in the environment, or give --${file} <path> (a file holding the token).`,
    )
  }
  const path = values[file]
  const fromEnv = env[variable] === '' ? undefined : env[variable]
  if (path !== undefined && fromEnv !== undefined)
    throw new UsageError(`the ${server}'s admin token is given twice (${variable} and --${file}): give one`)
  if (path === undefined && fromEnv === undefined)
    throw new UsageError(`the ${server}'s admin token is required: set ${variable}, or give --${file} <path>`)
  let token = fromEnv
  if (path !== undefined) {
    try {
      token = readFileSync(path, 'utf8')
    } catch (error) {
      throw new UsageError(`--${file}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`)
    }
  }
  token = token!.trim()
  const where = path === undefined ? variable : `--${file} ${path}`
  if (token === '' || /\s/.test(token)) throw new UsageError(`${where} must hold one admin token (no spaces or line breaks inside)`)
  return token
}

/** `env=secret` options as a map (the value is not quoted back: it may be the secret alone). */
function byEnvironment(values: string[] | undefined, option: string): Map<string, string> {
  const map = new Map<string, string>()
  for (const value of values ?? []) {
    const at = value.indexOf('=')
    if (at < 1) throw new UsageError(`--${option} takes <environment>=<secret>`)
    map.set(value.slice(0, at), value.slice(at + 1))
  }
  return map
}

/** Every secret replaced, whatever printed it (a server that echoes the Authorization header in an error, a URL holding one). */
function redacting(write: (text: string) => void, secrets: readonly string[]): (text: string) => void {
  return (text) => write(secrets.reduce((written, secret) => written.split(secret).join('[redacted]'), text))
}

/** `env`: where the admin tokens are read (process.env when run). */
export async function main(
  argv: string[],
  env: Record<string, string | undefined>,
  rawOut: (text: string) => void,
  rawErr: (text: string) => void,
): Promise<number> {
  const secrets: string[] = []
  const out = redacting(rawOut, secrets)
  const err = redacting(rawErr, secrets)
  let values: Values
  try {
    values = parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values
  } catch (error) {
    err(`pennon migrate: ${(error as Error).message}\n${USAGE}\n`)
    return 2
  }
  if (values.help) {
    out(`${USAGE}\n`)
    return 0
  }
  let from: AdminClient | undefined, to: AdminClient | undefined
  try {
    for (const name of ['from', 'to'] as const) if (!values[name]) throw new UsageError(`--${name} is required`)
    const tokens = { from: adminToken('from', values, env), to: adminToken('to', values, env) }
    secrets.push(tokens.from, tokens.to)
    const waited = (seconds: number, path: string) => err(`rate limited at ${path}: waiting ${seconds} s as the server asks…\n`)
    from = createAdminClient(values.from!, tokens.from, waited)
    to = createAdminClient(values.to!, tokens.to, waited)
    if (!values.verify) {
      const started = performance.now()
      const summary = await runMigration(from, to, (step) => err(`migrating ${step}…\n`))
      out(`${formatSummary(summary)}\n\n`)
      out(changedNothing(summary) ? 'Nothing changed: the target already had everything.\n' : 'Migrated.\n')
      out(`${TOKENS_NOTE}\n`)
      err(`took ${((performance.now() - started) / 1000).toFixed(1)} s\n`)
      return 0
    }
    const generated = values.generated === undefined ? undefined : Number(values.generated)
    if (generated !== undefined && !(Number.isInteger(generated) && generated >= 0 && generated <= 10_000))
      throw new UsageError('--generated takes a whole number from 0 to 10000')
    const extra = values.contexts === undefined ? [] : JSON.parse(readFileSync(values.contexts, 'utf8'))
    if (!Array.isArray(extra)) throw new UsageError(`--contexts: ${values.contexts} must hold a JSON array of contexts`)
    const given = {
      fromClient: byEnvironment(values['from-client-token'], 'from-client-token'),
      toClient: byEnvironment(values['to-client-token'], 'to-client-token'),
      fromFrontend: byEnvironment(values['from-frontend-token'], 'from-frontend-token'),
      toFrontend: byEnvironment(values['to-frontend-token'], 'to-frontend-token'),
    }
    for (const map of Object.values(given)) secrets.push(...[...map.values()].filter((secret) => secret !== ''))
    // Kept: an SDK token of one environment, optional. Said, as it is on the command line too.
    for (const option of ['from-client-token', 'to-client-token', 'from-frontend-token', 'to-frontend-token'] as const) {
      if (values[option] !== undefined)
        err(
          `warning: --${option} puts a secret on the command line, visible to every user of this machine (ps); without it, --verify creates a temporary token and deletes it after\n`,
        )
    }
    const report = await runVerification({
      from,
      to,
      environments: values.environment,
      contexts: extra,
      ...(generated === undefined ? {} : { generated }),
      tokens: given,
      progress: (line) => err(`${line}\n`),
    })
    const strict = values.strict === true
    out(formatVerification(report, strict))
    return verdict(report, strict).failed ? 1 : 0
  } catch (error) {
    if (error instanceof UsageError) {
      err(`pennon migrate: ${error.message}\n${USAGE}\n`)
      return 2
    }
    err(`pennon migrate: ${(error as Error).message}\n${refusedTokenHint(error, from, to)}`)
    return 1
  }
}

/** A 401 or 403 from a server: which token to look at (the token itself is never shown). */
function refusedTokenHint(error: unknown, ...clients: Array<{ base: string } | undefined>): string {
  if (!(error instanceof ApiError) || (error.status !== 401 && error.status !== 403)) return ''
  const sides = (['from', 'to'] as const).filter((_side, i) => clients[i] !== undefined && error.url.startsWith(`${clients[i]!.base}/`))
  return sides
    .map(
      (side) =>
        `The ${SIDES[side].server} server refused its admin token: check ${SIDES[side].variable} (or --${SIDES[side].file}); it must be an admin token of the --${side} server.\n`,
    )
    .join('')
}

if (import.meta.main)
  process.exitCode = await main(
    process.argv.slice(2),
    process.env,
    (t) => process.stdout.write(t),
    (t) => process.stderr.write(t),
  )
