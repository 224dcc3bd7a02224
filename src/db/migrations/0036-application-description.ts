import { sql, type Kysely } from 'kysely'

/**
 * What an admin may also tell about an application: a description (the reference stores and
 * shows one, though its createApplicationSchema does not list it). Null until set. Frozen in time.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('client_applications').addColumn('description', sql`text`).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('client_applications').dropColumn('description').execute()
}
