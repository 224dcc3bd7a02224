import { sql, type Kysely } from 'kysely'

/**
 * What an admin may tell about an application (the reference's createApplicationSchema, stored in
 * its client_applications): a link, a CSS colour and an icon URL. Null until set; read by the
 * application's key. And the SDK versions instances report, with their applications, for the
 * outdated SDKs (GET /metrics/sdks/outdated) read from the index alone. Frozen in time.
 */
export async function up(db: Kysely<any>): Promise<void> {
  for (const column of ['url', 'color', 'icon']) {
    await db.schema.alterTable('client_applications').addColumn(column, sql`text`).execute()
  }
  await db.schema
    .createIndex('client_instances_sdk_idx')
    .ifNotExists()
    .on('client_instances')
    .columns(['sdk_version', 'app_name'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('client_instances_sdk_idx').ifExists().execute()
  for (const column of ['url', 'color', 'icon']) {
    await db.schema.alterTable('client_applications').dropColumn(column).execute()
  }
}
