import { CompiledQuery, type Compilable, type Kysely } from 'kysely'
import { dialectOf, type DialectName } from './dialect.ts'

/**
 * A hot-path query compiled once per dialect instead of on every call: `build` makes
 * the query with placeholder values, and each call binds the real ones to the same SQL
 * (which the drivers' statement caches then reuse as a prepared statement).
 *
 * ```ts
 * const byName = prepared((db) => db.selectFrom('counters').select('value').where('name', '=', ''))
 * const rows = (await db.executeQuery(byName(db, ['event_id']))).rows
 * ```
 */
/**
 * A one-row insert of `columns` into `table`, compiled once; call it with the row.
 *
 * ```ts
 * const insertProject = preparedInsert<ProjectsTable>('projects', ['id', 'name'])
 * await db.executeQuery(insertProject(db, { id: 'p', name: 'P' }))
 * ```
 */
export function preparedInsert<Row extends object>(table: string, columns: readonly (keyof Row & string)[]) {
  const insert = prepared((db: Kysely<any>) => db.insertInto(table).values(Object.fromEntries(columns.map((column) => [column, '']))))
  return (db: Kysely<any>, row: Row): CompiledQuery =>
    insert(
      db,
      columns.map((column) => row[column]),
    )
}

export function prepared<R, DB>(build: (db: Kysely<DB>) => Compilable<R>) {
  const sqlByDialect = new Map<DialectName, string>()
  return (db: Kysely<DB>, parameters: readonly unknown[]): CompiledQuery<R> => {
    const dialect = dialectOf(db)
    let text = sqlByDialect.get(dialect)
    if (text === undefined) {
      text = build(db).compile().sql
      sqlByDialect.set(dialect, text)
    }
    return CompiledQuery.raw(text, [...parameters]) as CompiledQuery<R>
  }
}
