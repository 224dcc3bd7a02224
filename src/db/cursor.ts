import { CompiledQuery, type Kysely, type SelectQueryBuilder } from 'kysely'
import { dialectOf } from './dialect.ts'

/**
 * Reads the rows of a select page by page from a database cursor, so a long result
 * never sits in memory and the first page arrives before the last row is read.
 * Build `query` on the same `db` (on SQLite, the reader: WAL lets writes go on beside it).
 *
 * Ending the iteration early (`return()`, e.g. because the client went away) closes the
 * cursor and gives the connection back; so does an error.
 *
 * ```ts
 * for await (const page of streamPages(reader, reader.selectFrom('events').select('json').orderBy('id'), 1000)) send(page)
 * ```
 */
export async function* streamPages<R>(
  db: Kysely<any>,
  query: SelectQueryBuilder<any, any, R>,
  pageSize: number,
): AsyncGenerator<R[], void, undefined> {
  if (dialectOf(db) === 'postgres') {
    yield* declaredCursorPages(db, query.compile(), pageSize)
    return
  }
  // SQLite: the statement's own iterator (sqlite-dialect.ts streamQuery), one consistent snapshot, read in
  // chunks. The executor hands over whole chunks; the builder's `.stream()` re-yields them row by row.
  for await (const result of db.getExecutor().stream(query.compile(), pageSize)) yield result.rows as R[]
}

const CURSOR = 'pennon_cursor'

/** The PostgreSQL statement that opens the cursor for `query` (the plan tests explain exactly this). */
export function declareCursor(query: CompiledQuery): CompiledQuery {
  return CompiledQuery.raw(`declare ${CURSOR} no scroll cursor for ${query.sql}`, [...query.parameters])
}

/**
 * PostgreSQL: `DECLARE … CURSOR` in a read-only transaction, then `FETCH` page by page.
 * A declared cursor is planned for a fast start (cursor_tuple_fraction), so an ordered read
 * walks an index from its end. A protocol-level portal (pg-cursor, Kysely's `.stream()`)
 * is planned for the whole result instead: on a large table that is a full sort
 * (spilling to disk) before the first row leaves.
 */
async function* declaredCursorPages<R>(db: Kysely<any>, query: CompiledQuery<R>, pageSize: number): AsyncGenerator<R[], void, undefined> {
  const trx = await db.startTransaction().setAccessMode('read only').execute()
  try {
    await trx.executeQuery(declareCursor(query))
    const fetch = CompiledQuery.raw(`fetch forward ${Math.trunc(pageSize)} from ${CURSOR}`)
    for (;;) {
      const { rows } = await trx.executeQuery(fetch)
      if (rows.length === 0) return
      yield rows as R[]
    }
  } finally {
    // Ending the transaction closes the cursor. It wrote nothing, so a failed rollback
    // (a broken connection) loses nothing; Kysely releases the connection either way.
    await trx
      .rollback()
      .execute()
      .catch(() => {})
  }
}
