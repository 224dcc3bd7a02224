/**
 * `npm run admin-user -- <email>`: for an operator who has the database (DATABASE_URL or
 * DATABASE_FILE as for `npm start`). Creates an Admin user with that email when there is none,
 * or, for an existing user (a lost password), makes a new reset link; prints the one-time link
 * where they set their password (under PUBLIC_URL, else http://127.0.0.1:PORT). Events name the
 * system as the actor. The command sends no email, whatever EMAIL_HOST says. Password sign-in,
 * when single sign-on had turned it off, is turned on again: the password set is a way in.
 */
import { NO_EMAIL } from '../features/email/email-sender.ts'
import { openServerDatabase } from './cli-database.ts'
import { SYSTEM_ACTOR } from '../features/events/audit.ts'
import { createUserService, rootRoleOf } from '../features/users/user-service.ts'
import { sessionsOfUsers } from '../features/sessions/session-store.ts'
import { createSchedulesOfUsers } from '../features/change-requests/suspend-schedules.ts'
import { createPasswordAttempts } from '../features/users/password-attempts.ts'
import { createUserStore } from '../features/users/user-store.ts'
import { createSsoSettingsService } from '../features/sso/sso-settings-service.ts'

const USAGE = 'usage: npm run admin-user -- <email>   (DATABASE_URL or DATABASE_FILE as for npm start)'

async function main(): Promise<number> {
  const args = process.argv.slice(2)
  if (args.length !== 1 || args[0] === '--help' || args[0] === '-h') {
    process.stdout.write(`${USAGE}\n`)
    return args.length === 1 ? 0 : 1
  }
  const email = args[0]!
  const opened = await openServerDatabase('admin-user')
  if (!opened) return 1
  const { config, database } = opened
  const baseUrl = config.publicUrl ?? `http://127.0.0.1:${config.port}`
  try {
    const users = createUserService({
      db: database.db,
      attempts: createPasswordAttempts(config.loginFailuresPerAccount),
      sessions: sessionsOfUsers,
      schedules: createSchedulesOfUsers(),
      // The command prints its links, whatever EMAIL_HOST says.
      email: NO_EMAIL,
    })
    const ssoSettings = createSsoSettingsService({ db: database.db, fromEnvironment: config.oidc })
    if ((await ssoSettings.passwordSettings()).disabled) {
      await ssoSettings.setPasswordSettings(false, SYSTEM_ACTOR)
      process.stdout.write('Password sign-in was turned off (single sign-on only): it is on again.\n')
    }
    const existing = await createUserStore(database.db).findByLogin(email)
    if (existing) {
      const { link } = await users.resetLink(existing.id, SYSTEM_ACTOR, baseUrl)
      process.stdout.write(
        `User ${email} exists (root role ${rootRoleOf(existing.root_role).name}). To set a new password, open this link (valid 24 hours, once):\n\n    ${link}\n`,
      )
      return 0
    }
    const created = await users.create({ email, rootRole: 1 }, SYSTEM_ACTOR, baseUrl, 'admin-user command')
    process.stdout.write(
      `Created Admin user ${created.email}. To set their password, open this link (valid 7 days, once):\n\n    ${created.inviteLink}\n`,
    )
    return 0
  } catch (error) {
    process.stderr.write(`pennon admin-user: ${error instanceof Error ? error.message : String(error)}\n`)
    return 1
  } finally {
    await database.close()
  }
}

process.exitCode = await main()
