import { sql, type Kysely } from 'kysely'
import { columnTypes } from '../dialect.ts'

/**
 * Single sign-on with OpenID Connect (features/sso/). Frozen in time.
 *
 * - `oidc_logins`: a sign-in begun at the provider and not yet come back, by the SHA-256 of its
 *   `state`; taken (deleted) by the callback, so a state serves once, on whichever instance the
 *   browser comes back to. The nonce and PKCE verifier stay here, never in the browser. Expired
 *   rows go when the next sign-in begins (the `expires_at` index).
 * - `oidc_sessions`: the ID token a session was signed in with (the hint sent to the provider's
 *   end-session endpoint); goes with the session (cascade).
 */
export async function up(db: Kysely<any>): Promise<void> {
  const { timestamp, name } = columnTypes(db)
  const text = sql`text`
  await db.schema
    .createTable('oidc_logins')
    .ifNotExists()
    .addColumn('state_hash', name, (c) => c.primaryKey())
    .addColumn('nonce', text, (c) => c.notNull())
    .addColumn('code_verifier', text, (c) => c.notNull())
    .addColumn('redirect_uri', text, (c) => c.notNull())
    .addColumn('expires_at', timestamp, (c) => c.notNull())
    .execute()
  await db.schema.createIndex('oidc_logins_expires_idx').ifNotExists().on('oidc_logins').column('expires_at').execute()
  await db.schema
    .createTable('oidc_sessions')
    .ifNotExists()
    .addColumn('session_hash', text, (c) => c.primaryKey().references('user_sessions.secret_hash').onDelete('cascade'))
    .addColumn('id_token', text, (c) => c.notNull())
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('oidc_sessions').ifExists().execute()
  await db.schema.dropTable('oidc_logins').ifExists().execute()
}
