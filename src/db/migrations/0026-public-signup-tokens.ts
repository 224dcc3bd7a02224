import { sql, type Kysely } from 'kysely'
import { columnTypes } from '../dialect.ts'

/**
 * Public sign-up tokens (invite links anyone holding them may sign up with), as the reference's
 * `public_signup_tokens` and `public_signup_tokens_user`. Frozen in time.
 *
 * - `public_signup_tokens`: the secret is the key and is stored as is: admins are shown every
 *   token's link (the reference's API lists them), so it cannot be a hash. `url` is the link made
 *   at creation; `role_id` the root role given to those who sign up. Listed by `created_at`.
 * - `public_signup_tokens_user`: who signed up with which token; goes with the user (cascade),
 *   and with the token. The user's index serves that cascade.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const { timestamp, boolean, name } = columnTypes(db)
  const text = sql`text`
  const integer = sql`integer`
  await db.schema
    .createTable('public_signup_tokens')
    .ifNotExists()
    .addColumn('secret', name, (c) => c.primaryKey())
    .addColumn('name', text, (c) => c.notNull())
    .addColumn('url', text, (c) => c.notNull())
    .addColumn('role_id', integer, (c) => c.notNull())
    .addColumn('enabled', boolean, (c) => c.notNull())
    .addColumn('expires_at', timestamp, (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('created_by', text)
    .execute()
  await db.schema
    .createIndex('public_signup_tokens_created_idx')
    .ifNotExists()
    .on('public_signup_tokens')
    .columns(['created_at', 'secret'])
    .execute()
  await db.schema
    .createTable('public_signup_tokens_user')
    .ifNotExists()
    .addColumn('secret', name, (c) => c.notNull().references('public_signup_tokens.secret').onDelete('cascade'))
    .addColumn('user_id', integer, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('public_signup_tokens_user_pkey', ['secret', 'user_id'])
    .execute()
  await db.schema
    .createIndex('public_signup_tokens_user_user_idx')
    .ifNotExists()
    .on('public_signup_tokens_user')
    .column('user_id')
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('public_signup_tokens_user').ifExists().execute()
  await db.schema.dropTable('public_signup_tokens').ifExists().execute()
}
