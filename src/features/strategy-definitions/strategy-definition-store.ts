import type { Kysely } from 'kysely'
import type { Database, StrategyDefinitionsTable } from '../../db/tables.ts'
import type { StrategyDefinition } from './strategy-definitions.ts'
import { lockedRows } from '../../db/row-lock.ts'

const toDefinition = (row: StrategyDefinitionsTable): StrategyDefinition => ({
  title: row.title,
  name: row.name,
  displayName: row.display_name,
  description: row.description,
  editable: Boolean(row.editable),
  deprecated: Boolean(row.deprecated),
  parameters: JSON.parse(row.parameters),
})

export function createStrategyDefinitionStore(db: Kysely<Database>) {
  return {
    /** Built-in ones first, in their order; then custom ones by name. */
    async list(): Promise<StrategyDefinition[]> {
      const rows = await db
        .selectFrom('strategy_definitions')
        .selectAll()
        .orderBy('editable')
        .orderBy('sort_order')
        .orderBy('name')
        .execute()
      return rows.map(toDefinition)
    },

    /** `forUpdate` locks its row on PostgreSQL until the transaction ends. */
    async find(name: string, { forUpdate = false } = {}): Promise<StrategyDefinition | undefined> {
      const row = await db
        .selectFrom('strategy_definitions')
        .selectAll()
        .where('name', '=', name)
        .$call(lockedRows(db, { when: forUpdate }))
        .executeTakeFirst()
      return row && toDefinition(row)
    },

    async names(): Promise<string[]> {
      const rows = await db.selectFrom('strategy_definitions').select('name').execute()
      return rows.map((row) => row.name)
    },

    /**
     * Whether `name` is defined. On PostgreSQL its row is held (FOR KEY SHARE) until the
     * transaction ends, so a strategy that takes it up cannot meet its definition's deletion
     * (deprecating it, an update of other columns, is not held up).
     */
    async hold(name: string): Promise<boolean> {
      const row = await db
        .selectFrom('strategy_definitions')
        .select('name')
        .where('name', '=', name)
        .$call(lockedRows(db, { mode: 'key-share' }))
        .executeTakeFirst()
      return row !== undefined
    },

    /** A custom definition (listed after the built-ins, by name). */
    async insert(definition: StrategyDefinition, createdAt: string): Promise<void> {
      await db
        .insertInto('strategy_definitions')
        .values({
          name: definition.name,
          title: definition.title,
          display_name: definition.displayName,
          description: definition.description,
          editable: definition.editable,
          deprecated: definition.deprecated,
          parameters: JSON.stringify(definition.parameters),
          sort_order: 0,
          created_at: createdAt,
        })
        .execute()
    },

    async update(definition: StrategyDefinition): Promise<void> {
      await db
        .updateTable('strategy_definitions')
        .set({ title: definition.title, description: definition.description, parameters: JSON.stringify(definition.parameters) })
        .where('name', '=', definition.name)
        .execute()
    },

    async setDeprecated(name: string, deprecated: boolean): Promise<void> {
      await db.updateTable('strategy_definitions').set({ deprecated }).where('name', '=', name).execute()
    },

    async delete(name: string): Promise<void> {
      await db.deleteFrom('strategy_definitions').where('name', '=', name).execute()
    },
  }
}

export type StrategyDefinitionStore = ReturnType<typeof createStrategyDefinitionStore>
