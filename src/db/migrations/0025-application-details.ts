import { randomUUID } from 'node:crypto'
import { sql, type Kysely } from 'kysely'

/**
 * What an admin may tell about an application (the reference's createApplicationSchema, stored in
 * its client_applications): a link, a CSS colour and an icon URL. Null until set; read by the
 * application's key. And the SDK versions instances report, with their applications, for the
 * outdated SDKs (GET /metrics/sdks/outdated) read from the index alone. And the installation's
 * id (the reference's `instanceInfo` setting, `{"id": "<uuid>"}`), made once here so that no read
 * writes it: the instance statistics report it. Frozen in time.
 */
export async function up(db: Kysely<any>): Promise<void> {
  for (const column of ['url', 'color', 'icon']) {
    await db.schema.alterTable('client_applications').addColumn(column, sql`text`).execute()
  }
  await db
    .insertInto('settings')
    .values({ name: 'instanceInfo', content: JSON.stringify({ id: randomUUID() }) })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute()
  await db.schema
    .createIndex('client_instances_sdk_idx')
    .ifNotExists()
    .on('client_instances')
    .columns(['sdk_version', 'app_name'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('client_instances_sdk_idx').ifExists().execute()
  await db.deleteFrom('settings').where('name', '=', 'instanceInfo').execute()
  for (const column of ['url', 'color', 'icon']) {
    await db.schema.alterTable('client_applications').dropColumn(column).execute()
  }
}
