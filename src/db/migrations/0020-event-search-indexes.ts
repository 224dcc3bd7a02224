import { sql, type Kysely } from 'kysely'

/**
 * The indexes GET /search/events walks (features/events/event-search-store.ts): each filter
 * column with the id, so a filtered page newest first is a backward range scan stopped by its
 * LIMIT, and the filtered total a count over one range of one index. Project and flag have theirs
 * (0001, 0004); an event's environment is often null, so that index holds only those with one.
 * created_at's serves the date range; created_by_user_id's also lets GET /event-creators seek
 * from one creator to the next rather than read every event.
 */
const INDEXES = [
  sql`create index if not exists events_type_id_idx on events (type, id)`,
  sql`create index if not exists events_environment_id_idx on events (environment, id) where environment is not null`,
  sql`create index if not exists events_group_id_id_idx on events (group_id, id)`,
  sql`create index if not exists events_created_by_user_id_id_idx on events (created_by_user_id, id)`,
  sql`create index if not exists events_created_at_id_idx on events (created_at, id)`,
]

const NAMES = [
  'events_type_id_idx',
  'events_environment_id_idx',
  'events_group_id_id_idx',
  'events_created_by_user_id_id_idx',
  'events_created_at_idx',
]

export async function up(db: Kysely<any>): Promise<void> {
  for (const index of INDEXES) await index.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const name of NAMES) await sql`drop index if exists ${sql.ref(name)}`.execute(db)
}
