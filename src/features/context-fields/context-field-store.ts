import { sql, type Kysely, type RawBuilder } from 'kysely'
import { dialectOf } from '../../db/dialect.ts'
import type { ContextFieldsTable, Database } from '../../db/tables.ts'
import type { ContextFieldData } from '../events/event-types.ts'
import { lockedRows } from '../../db/row-lock.ts'

/** A context field as the API shows it (GET /api/admin/context/:name). */
export type ContextField = ContextFieldData

/** How many active flags, and projects, constrain on a field through their strategies. */
export interface FieldUsage {
  features: number
  projects: number
}

export interface StrategyUsingField {
  id: string
  projectId: string
  featureName: string
  strategyName: string
  environment: string
}

const toField = (row: ContextFieldsTable): ContextField => ({
  name: row.name,
  description: row.description,
  stickiness: Boolean(row.stickiness),
  sortOrder: row.sort_order,
  legalValues: JSON.parse(row.legal_values),
  createdAt: row.created_at,
  ...(row.project === null ? {} : { project: row.project }),
})

const toRow = (field: ContextField): ContextFieldsTable => ({
  name: field.name,
  description: field.description,
  stickiness: field.stickiness,
  sort_order: field.sortOrder,
  legal_values: JSON.stringify(field.legalValues),
  project: field.project ?? null,
  created_at: field.createdAt,
})

/**
 * The constraints of a strategy row (`fs`), one row each (`c.value`), and a constraint's
 * context name: JSON functions of each database over the stored JSON text.
 */
function constraintsOf(db: Kysely<Database>): { join: RawBuilder<unknown>; contextName: RawBuilder<string> } {
  return dialectOf(db) === 'postgres'
    ? { join: sql`jsonb_array_elements(fs.constraints::jsonb) as c`, contextName: sql<string>`c.value ->> 'contextName'` }
    : { join: sql`json_each(fs.constraints) as c`, contextName: sql<string>`json_extract(c.value, '$.contextName')` }
}

/**
 * A strategy row `fs` of an active flag (`f`) with a constraint on `name`. Only rows whose JSON
 * text contains the name as a context name (a substring test, exact or wider) are parsed to
 * confirm it: the scan reads the strategies with constraints (an index holds exactly those).
 */
function constrainsOn(db: Kysely<Database>, name: string): RawBuilder<boolean> {
  const { join, contextName } = constraintsOf(db)
  // As the stored JSON writes it (JSON.stringify on both sides, so any name is found).
  const needle = `"contextName":${JSON.stringify(name)}`
  const contains = dialectOf(db) === 'postgres' ? sql`strpos(fs.constraints, ${needle}) > 0` : sql`instr(fs.constraints, ${needle}) > 0`
  return sql<boolean>`fs.constraints <> '[]' and f.archived_at is null and ${contains}
    and exists (select 1 from ${join} where ${contextName} = ${name})`
}

export function createContextFieldStore(db: Kysely<Database>) {
  return {
    /** Every field (`project`: only that project's, and with `orRoot` every project's too), by name. */
    async list(filter: { project: string | null | 'any'; orRoot?: boolean }): Promise<ContextField[]> {
      const rows = await db
        .selectFrom('context_fields')
        .selectAll()
        .$if(filter.project === null, (query) => query.where('project', 'is', null))
        .$if(typeof filter.project === 'string' && filter.project !== 'any', (query) =>
          query.where((eb) => (filter.orRoot ? eb.or([eb('project', '=', filter.project), eb('project', 'is', null)]) : eb('project', '=', filter.project))))
        .orderBy('name')
        .execute()
      return rows.map(toField)
    },

    /** `forUpdate` locks its row on PostgreSQL until the transaction ends (legal values are read, changed and written back). */
    async find(name: string, { forUpdate = false } = {}): Promise<ContextField | undefined> {
      const row = await db
        .selectFrom('context_fields')
        .selectAll()
        .where('name', '=', name)
        .$call(lockedRows(db, { when: forUpdate }))
        .executeTakeFirst()
      return row && toField(row)
    },

    async exists(name: string): Promise<boolean> {
      return (await db.selectFrom('context_fields').select('name').where('name', '=', name).executeTakeFirst()) !== undefined
    },

    async insert(field: ContextField): Promise<void> {
      await db.insertInto('context_fields').values(toRow(field)).execute()
    },

    async update(field: ContextField): Promise<void> {
      const { name, created_at: _createdAt, ...changes } = toRow(field)
      await db.updateTable('context_fields').set(changes).where('name', '=', name).execute()
    },

    async delete(name: string): Promise<void> {
      await db.deleteFrom('context_fields').where('name', '=', name).execute()
    },

    /**
     * Per context name used (defined as a field or not): how many active flags and projects
     * constrain on it. One pass over the strategies that have constraints (an index holds exactly
     * those: migration 0011), each one's JSON read by the database and counted there: a row per
     * name comes back, whatever the number of strategies.
     */
    async usage(): Promise<Map<string, FieldUsage>> {
      const { join, contextName } = constraintsOf(db)
      const { rows } = await sql<{ name: string | null; features: number | string; projects: number | string }>`
        select ${contextName} as name, count(distinct fs.feature_name) as features, count(distinct fs.project) as projects
        from feature_strategies fs
        join features f on f.name = fs.feature_name
        cross join ${join}
        where fs.constraints <> '[]' and f.archived_at is null
        group by 1`.execute(db)
      return new Map(rows.filter((row) => row.name !== null).map((row) => [row.name!, { features: Number(row.features), projects: Number(row.projects) }]))
    },

    /** The strategies of active flags with a constraint on `name`, by flag, environment and order. */
    async strategiesUsing(name: string): Promise<StrategyUsingField[]> {
      const { rows } = await sql<StrategyUsingField>`
        select fs.id, fs.project as "projectId", fs.feature_name as "featureName", fs.strategy_name as "strategyName", fs.environment
        from feature_strategies fs
        join features f on f.name = fs.feature_name
        where ${constrainsOn(db, name)}
        order by fs.feature_name, fs.environment, fs.sort_order, fs.id`.execute(db)
      return rows
    },

    /** The active flags with a strategy constraint on `name`, by name, at most `limit`. */
    async flagsUsing(name: string, limit: number): Promise<string[]> {
      const { rows } = await sql<{ name: string }>`
        select distinct fs.feature_name as name
        from feature_strategies fs
        join features f on f.name = fs.feature_name
        where ${constrainsOn(db, name)}
        order by fs.feature_name
        limit ${limit}`.execute(db)
      return rows.map((row) => row.name)
    },

    /** Whether the project exists; on PostgreSQL its row is held (FOR KEY SHARE) so it cannot go before the field written in it commits. */
    async holdProject(id: string): Promise<boolean> {
      const row = await db
        .selectFrom('projects')
        .select('id')
        .where('id', '=', id)
        .$call(lockedRows(db, { mode: 'key-share' }))
        .executeTakeFirst()
      return row !== undefined
    },
  }
}

export type ContextFieldStore = ReturnType<typeof createContextFieldStore>
