import { sql, type Kysely } from 'kysely'
import { dialectOf } from '../dialect.ts'

/**
 * Archive validations are remembered too (archive-validation.ts), so a change to flags or
 * dependencies must move every instance's version even when it writes no event: a statement
 * run by hand. Same notification as migration 0002's; SQLite again needs nothing.
 */
const WATCHED_TABLES = ['features', 'feature_dependencies']

export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return
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
}
