import { sql, type Kysely } from 'kysely'
import { columnTypes, dialectOf } from '../dialect.ts'

/**
 * Strategy definitions: the names flag strategies may use, with their parameters. The built-in
 * ones are rows too (`editable` false), seeded here as the reference seeds its `strategies`
 * table, so that one table says which names exist, which are deprecated, and that a custom one
 * cannot take a built-in's name. Frozen in time: the definitions below are those of this
 * migration; a later change to a built-in is a migration of its own.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const { timestamp, boolean, name } = columnTypes(db)
  const text = sql`text`

  await db.schema
    .createTable('strategy_definitions')
    .ifNotExists()
    .addColumn('name', name, (c) => c.primaryKey())
    .addColumn('title', text)
    .addColumn('display_name', text)
    .addColumn('description', text)
    /** false: built in (only its deprecation can change) */
    .addColumn('editable', boolean, (c) => c.notNull())
    .addColumn('deprecated', boolean, (c) => c.notNull())
    /** JSON text: [{name, type, description, required}] */
    .addColumn('parameters', text, (c) => c.notNull())
    /** The built-ins' place in the list; custom ones follow them by name */
    .addColumn('sort_order', sql`integer`, (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute()
  // "Which flags use this strategy?" before a custom definition is deleted.
  await db.schema
    .createIndex('feature_strategies_strategy_name_idx')
    .ifNotExists()
    .on('feature_strategies')
    .column('strategy_name')
    .execute()

  const createdAt = new Date().toISOString()
  const parameter = (name: string, type: string, description: string, required: boolean) => ({ name, type, description, required })
  const groupId = parameter(
    'groupId',
    'string',
    'Used to define a activation groups, which allows you to correlate across feature toggles.',
    true,
  )
  const percentage = parameter('percentage', 'percentage', '', false)
  const builtIn = (
    sortOrder: number,
    name: string,
    displayName: string | null,
    description: string,
    deprecated: boolean,
    parameters: object[],
  ) => ({
    name,
    title: null,
    display_name: displayName,
    description,
    editable: false,
    deprecated,
    parameters: JSON.stringify(parameters),
    sort_order: sortOrder,
    created_at: createdAt,
  })
  // The reference's words. userWithId and the gradualRollout* strategies are deprecated, as in
  // the reference's 4.x–5.x instances (fresh 7.x ones no longer list them): SDKs still evaluate them.
  await db
    .insertInto('strategy_definitions')
    .values([
      builtIn(
        0,
        'flexibleRollout',
        'Gradual rollout',
        'Roll out to a percentage of your userbase, and ensure that the experience is the same for the user on each visit.',
        false,
        [
          parameter('rollout', 'percentage', '', false),
          parameter('stickiness', 'string', 'Used define stickiness. Possible values: default, userId, sessionId, random', true),
          groupId,
        ],
      ),
      builtIn(
        1,
        'default',
        'Standard',
        'This strategy turns on / off for your entire userbase. Prefer using "Gradual rollout" strategy (100%=on, 0%=off).',
        false,
        [],
      ),
      builtIn(
        2,
        'userWithId',
        'UserIDs',
        'Enable the feature for a specific set of userIds. Prefer using "Gradual rollout" strategy with user id constraints.',
        true,
        [parameter('userIds', 'list', '', false)],
      ),
      builtIn(3, 'remoteAddress', 'IPs', 'Enable the feature for a specific set of IP addresses.', false, [
        parameter('IPs', 'list', 'List of IPs to enable the feature toggle for.', true),
      ]),
      builtIn(4, 'applicationHostname', 'Hosts', 'Enable the feature for a specific set of hostnames.', false, [
        parameter('hostNames', 'list', 'List of hostnames to enable the feature toggle for.', false),
      ]),
      builtIn(5, 'gradualRolloutRandom', null, 'Randomly activate the feature toggle. No stickiness.', true, [percentage]),
      builtIn(6, 'gradualRolloutSessionId', null, 'Gradually activate feature toggle. Stickiness based on session id.', true, [
        percentage,
        groupId,
      ]),
      builtIn(
        7,
        'gradualRolloutUserId',
        null,
        'Gradually activate feature toggle for logged in users. Stickiness based on user id.',
        true,
        [percentage, groupId],
      ),
    ])
    .onConflict((oc) => oc.column('name').doNothing())
    .execute()

  // Flags served to SDKs are remembered per change version; a definition is flag data too (as in migration 0005).
  if (dialectOf(db) === 'postgres') {
    await sql`create trigger strategy_definitions_notify_change after insert or update or delete or truncate on strategy_definitions
      for each statement execute function pennon_notify_change()`.execute(db)
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) === 'postgres') await sql`drop trigger if exists strategy_definitions_notify_change on strategy_definitions`.execute(db)
  await db.schema.dropIndex('feature_strategies_strategy_name_idx').ifExists().execute()
  await db.schema.dropTable('strategy_definitions').ifExists().execute()
}
