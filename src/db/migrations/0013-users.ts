import { sql, type Kysely } from 'kysely'
import { columnTypes, dialectOf } from '../dialect.ts'

/**
 * People (docs/security.md). Frozen in time.
 *
 * - `users`: ids from the counter service accounts use (one id space, as the reference's, so an
 *   event's createdByUserId names one account); `email` stored in lower case, unique; `username`
 *   unique; `password_hash` null until a password is set (an invited user).
 * - `user_sessions`: a signed-in browser, by the SHA-256 of its cookie's secret; ends with its
 *   user (cascade), at its absolute expiry, or after inactivity (`seen_at`).
 * - `personal_access_tokens`: a user's API tokens, acting as the user; go with the user.
 * - `password_reset_tokens`: one-time links an admin hands to a user (invite or reset).
 *
 * `users` and `personal_access_tokens` are what principals are read from: on PostgreSQL their
 * changes notify the other instances as the token tables' do (0002-change-notify.ts).
 */
export async function up(db: Kysely<any>): Promise<void> {
  const { timestamp, name } = columnTypes(db)
  const text = sql`text`
  const integer = sql`integer`

  await db.schema
    .createTable('users')
    .ifNotExists()
    .addColumn('id', integer, (c) => c.primaryKey())
    .addColumn('name', text)
    .addColumn('username', name, (c) => c.unique())
    .addColumn('email', name, (c) => c.unique())
    .addColumn('password_hash', text)
    .addColumn('root_role', integer, (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute()

  // Sign-in bookkeeping, apart from `users`: a principal never depends on it, so writing it (at
  // every failed sign-in, too) leaves every instance's remembered principals alone.
  await db.schema
    .createTable('user_activity')
    .ifNotExists()
    .addColumn('user_id', integer, (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('login_attempts', integer, (c) => c.notNull())
    .addColumn('seen_at', timestamp)
    .execute()

  await db.schema
    .createTable('user_sessions')
    .ifNotExists()
    .addColumn('secret_hash', text, (c) => c.primaryKey())
    .addColumn('user_id', integer, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('seen_at', timestamp, (c) => c.notNull())
    .addColumn('expires_at', timestamp, (c) => c.notNull())
    .execute()
  await db.schema.createIndex('user_sessions_user_idx').ifNotExists().on('user_sessions').column('user_id').execute()
  await db.schema.createIndex('user_sessions_expires_idx').ifNotExists().on('user_sessions').column('expires_at').execute()

  await db.schema
    .createTable('personal_access_tokens')
    .ifNotExists()
    .addColumn('id', integer, (c) => c.primaryKey())
    .addColumn('user_id', integer, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('description', text, (c) => c.notNull())
    .addColumn('secret_hash', text, (c) => c.notNull().unique())
    .addColumn('expires_at', timestamp, (c) => c.notNull())
    .addColumn('seen_at', timestamp)
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('personal_access_tokens_user_idx')
    .ifNotExists()
    .on('personal_access_tokens')
    .columns(['user_id', 'id'])
    .execute()

  await db.schema
    .createTable('password_reset_tokens')
    .ifNotExists()
    .addColumn('secret_hash', text, (c) => c.primaryKey())
    .addColumn('user_id', integer, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_by', text, (c) => c.notNull())
    .addColumn('expires_at', timestamp, (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute()
  await db.schema.createIndex('password_reset_tokens_user_idx').ifNotExists().on('password_reset_tokens').column('user_id').execute()

  await db
    .insertInto('counters')
    .values({ name: 'personal_token_id', value: 0 })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute()

  if (dialectOf(db) === 'postgres') {
    for (const table of ['users', 'personal_access_tokens']) {
      await sql`create trigger ${sql.raw(`${table}_notify_change`)} after insert or update or delete or truncate on ${sql.table(table)}
        for each statement execute function pennon_notify_change()`.execute(db)
    }
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['password_reset_tokens', 'personal_access_tokens', 'user_sessions', 'user_activity', 'users']) {
    await db.schema.dropTable(table).ifExists().execute()
  }
  await db.deleteFrom('counters').where('name', '=', 'personal_token_id').execute()
}
