import { sql, type Kysely } from 'kysely'
import { dialectOf } from '../dialect.ts'

/** The tables whose content Pennon caches: who a token is, and the event log. */
const WATCHED_TABLES = ['api_tokens', 'service_accounts', 'service_account_tokens', 'events']

/**
 * PostgreSQL: any committed change to a watched table (by Pennon or by hand) notifies
 * `pennon_changes`, so every instance drops what it cached from them (change-watch.ts).
 * SQLite needs nothing: a connection sees other commits in `data_version`.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return
  await sql`create or replace function pennon_notify_change() returns trigger language plpgsql as $$
    begin
      perform pg_notify('pennon_changes', tg_table_schema);
      return null;
    end $$`.execute(db)
  for (const table of WATCHED_TABLES) {
    await sql`create trigger ${sql.raw(`${table}_notify_change`)} after insert or update or delete or truncate on ${sql.table(table)}
      for each statement execute function pennon_notify_change()`.execute(db)
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return
  for (const table of WATCHED_TABLES) {
    await sql`drop trigger if exists ${sql.raw(`${table}_notify_change`)} on ${sql.table(table)}`.execute(db)
  }
  await sql`drop function if exists pennon_notify_change()`.execute(db)
}
