import { sql, type Kysely } from 'kysely'

/**
 * A project's default strategy per environment, and the indexes the project insights and the
 * personal dashboard read by. Frozen in time.
 *
 * `project_environments.default_strategy`: the strategy (JSON text, as sent) that switching a flag
 * on there adds when it has none; null: the built-in flexible rollout. It goes with the row, so an
 * environment taken from a project forgets it, as the reference's does.
 *
 * Events by project and time: the activity windows count one range; by project and type: whether
 * a flag was ever switched on in a project, and who created it; by creator and type: the flags a
 * person created. Users by root role: the instance's admins. Applications' usage by project:
 * whether an SDK has used a project.
 */
const INDEXES = [
  sql`create index if not exists events_project_created_at_idx on events (project, created_at)`,
  sql`create index if not exists events_project_type_id_idx on events (project, type, id)`,
  sql`create index if not exists events_creator_type_id_idx on events (created_by_user_id, type, id)`,
  sql`create index if not exists users_root_role_idx on users (root_role)`,
  sql`create index if not exists client_applications_usage_project_idx on client_applications_usage (project)`,
]

const NAMES = [
  'events_project_created_at_idx',
  'events_project_type_id_idx',
  'events_creator_type_id_idx',
  'users_root_role_idx',
  'client_applications_usage_project_idx',
]

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('project_environments').addColumn('default_strategy', sql`text`).execute()
  for (const index of INDEXES) await index.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const name of NAMES) await sql`drop index if exists ${sql.ref(name)}`.execute(db)
  await db.schema.alterTable('project_environments').dropColumn('default_strategy').execute()
}
