import { randomUUID } from 'node:crypto'
import { sql, type Kysely } from 'kysely'
import { columnTypes } from '../dialect.ts'

/**
 * What an admin may tell about an application (the reference's createApplicationSchema, stored in
 * its client_applications): a link, a CSS colour and an icon URL. Null until set; read by the
 * application's key. And the SDK versions instances report, with their applications, for the
 * outdated SDKs (GET /metrics/sdks/outdated) read from the index alone. And the installation's
 * id (the reference's `instanceInfo` setting, `{"id": "<uuid>"}`), made once here so that no read
 * writes it: the instance statistics report it. And the nonces of Unleash Edge's signed token
 * requests (POST /edge/issue-token), each refused a second time until it expires (5 minutes; the
 * expired ones are deleted by `expires_at`). Frozen in time.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const { name, timestamp } = columnTypes(db)
  await db.schema
    .createTable('edge_nonces')
    .ifNotExists()
    .addColumn('client_id', name, (c) => c.notNull())
    .addColumn('nonce', name, (c) => c.notNull())
    .addColumn('expires_at', timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('edge_nonces_pk', ['client_id', 'nonce'])
    .execute()
  await db.schema.createIndex('edge_nonces_expires_at_idx').ifNotExists().on('edge_nonces').column('expires_at').execute()
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
  await db.schema.dropTable('edge_nonces').ifExists().execute()
  await db.schema.dropIndex('client_instances_sdk_idx').ifExists().execute()
  await db.deleteFrom('settings').where('name', '=', 'instanceInfo').execute()
  for (const column of ['url', 'color', 'icon']) {
    await db.schema.alterTable('client_applications').dropColumn(column).execute()
  }
}
