import { sql, type Kysely } from 'kysely'
import { columnTypes } from '../dialect.ts'

/**
 * Flag types with their expected lifetimes: a flag that outlives its type's lifetime is
 * potentially stale (computed when read). Seeded as a fresh Unleash 8.2 lists them; only the
 * lifetimes change afterwards (PUT /api/admin/feature-types/:id/lifetime). Frozen in time.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const { name } = columnTypes(db)
  await db.schema
    .createTable('feature_types')
    .ifNotExists()
    .addColumn('id', name, (c) => c.primaryKey())
    .addColumn('name', sql`text`, (c) => c.notNull())
    .addColumn('description', sql`text`, (c) => c.notNull())
    /** null: never potentially stale */
    .addColumn('lifetime_days', sql`integer`)
    .addColumn('sort_order', sql`integer`, (c) => c.notNull())
    .execute()
  const type = (sortOrder: number, id: string, typeName: string, description: string, lifetimeDays: number | null) => ({
    id,
    name: typeName,
    description,
    lifetime_days: lifetimeDays,
    sort_order: sortOrder,
  })
  await db
    .insertInto('feature_types')
    .values([
      type(0, 'release', 'Release', 'Roll out new or incomplete features. Expected lifetime ~40 days', 40),
      type(1, 'experiment', 'Experiment', 'A/B and multivariate testing. Expected lifetime ~40 days', 40),
      type(
        2,
        'operational',
        'Operational',
        'Transition between technical implementations with minimal risk. Expected lifetime: ~7 days',
        7,
      ),
      type(3, 'kill-switch', 'Kill switch', 'Quickly disable certain functionalities or features. Expected lifetime: permanent', null),
      type(4, 'permission', 'Permission', 'Control feature access based on user roles or entitlements. Expected lifetime: permanent', null),
      type(5, 'sunset', 'Sunset', 'Coordinate the planned removal of an existing feature. Expected lifetime: ~90 days', 90),
    ])
    .onConflict((oc) => oc.column('id').doNothing())
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('feature_types').ifExists().execute()
}
