import { sql, type Kysely } from 'kysely'
import { dialectOf } from '../dialect.ts'

/**
 * Sessions are remembered per instance (sessions/session-cache.ts), so a session that ends on one
 * instance (sign-out, the oldest of too many, deleted or expired by hand) must end everywhere at
 * once: on PostgreSQL such a change of user_sessions notifies the other instances as the token
 * tables' changes do (0002-change-notify.ts). A new session, and the inactivity clock moved
 * forward (once a minute per active session, by every instance), end nothing and stay silent, so
 * they do not empty every instance's caches. SQLite needs nothing: other connections' commits
 * move its data_version.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return
  await sql`create trigger user_sessions_notify_end after delete or truncate on user_sessions
    for each statement execute function pennon_notify_change()`.execute(db)
  await sql`create trigger user_sessions_notify_change after update on user_sessions for each row
    when (new.seen_at < old.seen_at or new.expires_at <> old.expires_at or new.user_id <> old.user_id or new.secret_hash <> old.secret_hash)
    execute function pennon_notify_change()`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return
  await sql`drop trigger if exists user_sessions_notify_end on user_sessions`.execute(db)
  await sql`drop trigger if exists user_sessions_notify_change on user_sessions`.execute(db)
}
