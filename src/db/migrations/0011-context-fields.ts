import { sql, type Kysely } from 'kysely'
import { columnTypes, dialectOf } from '../dialect.ts'

/**
 * Context fields: the names constraints are offered, with their legal values and whether
 * flexible rollouts may be sticky on them. The built-in ones are seeded as a fresh reference
 * instance lists them (its migrations 2020–2023: environment, userId, appName, currentTime,
 * sessionId), as ordinary rows: the reference lets them be edited and deleted like any other.
 * A field may belong to a project (the reference's project context fields); a project holding
 * some cannot be deleted. Frozen in time.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const { timestamp, boolean, name } = columnTypes(db)
  const text = sql`text`

  await db.schema
    .createTable('context_fields')
    .ifNotExists()
    .addColumn('name', name, (c) => c.primaryKey())
    .addColumn('description', text)
    .addColumn('stickiness', boolean, (c) => c.notNull())
    .addColumn('sort_order', sql`integer`, (c) => c.notNull())
    /** JSON text: [{value, description?}] as sent */
    .addColumn('legal_values', text, (c) => c.notNull())
    .addColumn('project', name, (c) => c.references('projects.id').onDelete('restrict'))
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute()
  await db.schema.createIndex('context_fields_project_idx').ifNotExists().on('context_fields').column('project').execute()

  // "Which strategies constrain on this field?" reads only the strategies that have constraints
  // (most have none), then parses their JSON: an index of exactly those rows.
  await sql`create index if not exists feature_strategies_constrained_idx on feature_strategies (feature_name) where constraints <> '[]'`.execute(
    db,
  )

  const createdAt = new Date().toISOString()
  const builtIn = (sortOrder: number, fieldName: string, description: string, stickiness: boolean) => ({
    name: fieldName,
    description,
    stickiness,
    sort_order: sortOrder,
    legal_values: '[]',
    project: null,
    created_at: createdAt,
  })
  // The reference's words and order. Only sessionId is sticky: userId got its column's default
  // (false) before the reference's 2023 migration, which set it only where it was null.
  await db
    .insertInto('context_fields')
    .values([
      builtIn(0, 'environment', 'Allows you to constrain on application environment', false),
      builtIn(1, 'userId', 'Allows you to constrain on userId', false),
      builtIn(2, 'appName', 'Allows you to constrain on application name', false),
      builtIn(3, 'currentTime', 'Allows you to constrain on date values', false),
      builtIn(4, 'sessionId', 'Allows you to constrain on sessionId', true),
    ])
    .onConflict((oc) => oc.column('name').doNothing())
    .execute()

  // Strategy and segment writes check legal values remembered per change version: a change made
  // by hand must move it too (as in migration 0002).
  if (dialectOf(db) === 'postgres') {
    await sql`create trigger context_fields_notify_change after insert or update or delete or truncate on context_fields
      for each statement execute function pennon_notify_change()`.execute(db)
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) === 'postgres') await sql`drop trigger if exists context_fields_notify_change on context_fields`.execute(db)
  await sql`drop index if exists feature_strategies_constrained_idx`.execute(db)
  await db.schema.dropTable('context_fields').ifExists().execute()
}
