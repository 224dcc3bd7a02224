/**
 * GET /instance-admin/statistics and /statistics/csv through the real app on each database: the
 * figures of a fresh instance, then after flags, tokens, people and SDK reports; the CSV row of
 * the same figures; any admin-API credential (NONE).
 */
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { test } from 'node:test'
import { apiToken, call, onEachDatabase, serviceAccountToken, useTestApp } from '../../../test/test-app.ts'
import { createUser, signIn } from '../../../test/people.ts'
import { toCsv } from './instance-stats-service.ts'

const STATS = '/api/admin/instance-admin/statistics'
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
const zeroes = { last7: 0, last30: 0, last60: 0, last90: 0 }

/** The figures of an instance as made by useTestApp, but for those given. */
function expected(instanceId: string, timestamp: string, changed: Record<string, unknown>) {
  const body: Record<string, unknown> = {
    timestamp,
    instanceId,
    versionOSS: '0.1.0',
    versionEnterprise: '',
    users: 0,
    serviceAccounts: 0,
    apiTokens: { admin: 1 },
    activeUsers: zeroes,
    licensedUsers: 0,
    featureToggles: 0,
    archivedFeatureToggles: 0,
    projects: 1,
    contextFields: 5,
    roles: 3,
    customRootRoles: 0,
    customRootRolesInUse: 0,
    groups: 0,
    environments: 2,
    segments: 0,
    strategies: 8,
    SAMLenabled: false,
    OIDCenabled: false,
    passwordAuthEnabled: true,
    SCIMenabled: false,
    clientApps: [
      { range: '7d', count: 0 },
      { range: '30d', count: 0 },
      { range: 'allTime', count: 0 },
    ],
    featureExports: 0,
    featureImports: 0,
    productionChanges: { last30: 0, last60: 0, last90: 0 },
    previousDayMetricsBucketsCount: { enabledCount: 0, variantCount: 0 },
    maxEnvironmentStrategies: 0,
    maxConstraintValues: 0,
    maxConstraints: 0,
    releaseTemplates: 0,
    releasePlans: 0,
    edgeInstanceUsage: {},
    readOnlyUsers: 0,
    ...changed,
  }
  const sum = createHash('sha256')
    .update(
      `${instanceId}${body.users}${body.featureToggles}${body.projects}${body.roles}${body.groups}${body.environments}${body.segments}`,
    )
    .digest('hex')
  return { ...body, sum }
}

onEachDatabase('instance statistics', (database) => {
  test('GET /instance-admin/statistics: a fresh instance, then one in use', async (t) => {
    const pennon = await useTestApp(t, database)
    const fresh = await call(pennon, 'GET', STATS)
    assert.equal(fresh.status, 200)
    const { instanceId, timestamp } = fresh.body
    assert.match(instanceId, UUID)
    assert.ok(Math.abs(Date.parse(timestamp) - Date.now()) < 60_000)
    assert.deepEqual(fresh.body, expected(instanceId, timestamp, {}))

    await createUser(pennon, 'ada@example.com', 1)
    await signIn(pennon, 'ada@example.com')
    await serviceAccountToken(pennon, 2)
    const client = await apiToken(pennon, 'client')
    for (const name of ['a', 'b', 'gone'])
      assert.equal((await call(pennon, 'POST', '/api/admin/projects/default/features', { name })).status, 201)
    assert.equal((await call(pennon, 'DELETE', '/api/admin/projects/default/features/gone')).status, 202)
    const strategy = {
      name: 'flexibleRollout',
      constraints: [
        { contextName: 'userId', operator: 'IN', values: ['1', '2', '3'] },
        { contextName: 'appName', operator: 'IN', values: ['x'] },
      ],
      parameters: { rollout: '50', stickiness: 'default', groupId: 'a' },
    }
    const strategies = '/api/admin/projects/default/features/a/environments/production/strategies'
    assert.equal((await call(pennon, 'POST', strategies, strategy)).status, 200)
    assert.equal((await call(pennon, 'POST', strategies, { name: 'default' })).status, 200)
    const registered = await call(
      pennon,
      'POST',
      '/api/client/register',
      { appName: 'shop', instanceId: 'i', strategies: ['default'], started: new Date().toISOString(), interval: 10_000 },
      { token: client },
    )
    assert.equal(registered.status, 202)
    await pennon.metrics.flush()

    const used = await call(pennon, 'GET', STATS)
    assert.equal(used.status, 200)
    assert.deepEqual(
      used.body,
      expected(instanceId, used.body.timestamp, {
        users: 1,
        serviceAccounts: 1,
        apiTokens: { admin: 1, client: 1 },
        activeUsers: { last7: 1, last30: 1, last60: 1, last90: 1 },
        licensedUsers: 1,
        featureToggles: 2,
        archivedFeatureToggles: 1,
        clientApps: [
          { range: '7d', count: 1 },
          { range: '30d', count: 1 },
          { range: 'allTime', count: 1 },
        ],
        // The two strategies added in production.
        productionChanges: { last30: 2, last60: 2, last90: 2 },
        maxEnvironmentStrategies: 2,
        maxConstraintValues: 3,
        maxConstraints: 2,
      }),
    )
  })

  test('GET /instance-admin/statistics/csv: the same figures, one row under a header, as an attachment', async (t) => {
    const pennon = await useTestApp(t, database)
    const csv = await call(pennon, 'GET', `${STATS}/csv`)
    assert.equal(csv.status, 200)
    assert.equal(csv.headers['content-type'], 'text/csv; charset=utf-8')
    const json = (await call(pennon, 'GET', STATS)).body
    assert.match(String(csv.headers['content-disposition']), new RegExp(`^attachment; filename="pennon-${json.instanceId}-\\d+\\.csv"$`))
    const [header, row] = csv.text.split('\n')
    assert.equal(
      header,
      '"timestamp","instanceId","versionOSS","versionEnterprise","users","serviceAccounts","apiTokens","activeUsers","licensedUsers","featureToggles","archivedFeatureToggles","projects","contextFields","roles","customRootRoles","customRootRolesInUse","groups","environments","segments","strategies","SAMLenabled","OIDCenabled","passwordAuthEnabled","SCIMenabled","clientApps","featureExports","featureImports","productionChanges","previousDayMetricsBucketsCount","maxEnvironmentStrategies","maxConstraintValues","maxConstraints","releaseTemplates","releasePlans","edgeInstanceUsage","readOnlyUsers","sum"',
    )
    const timestamp = row!.slice(1, 25)
    assert.equal(csv.text, toCsv({ ...json, timestamp }))
    assert.match(
      row!,
      /^"[^"]+","[0-9a-f-]{36}","0\.1\.0","",0,0,"\{""admin"":1\}","\{""last7"":0,""last30"":0,""last60"":0,""last90"":0\}",0,0,0,1,5,3,0,0,0,2,0,8,false,false,true,false,"\[\{""range"":""7d"",""count"":0\},/,
    )
  })

  test('any admin-API credential (NONE); none is a 401; AUTH_TYPE=none has no password sign-in', async (t) => {
    const pennon = await useTestApp(t, database)
    const viewer = await serviceAccountToken(pennon, 3)
    assert.equal((await call(pennon, 'GET', STATS, undefined, { token: viewer })).status, 200)
    assert.equal((await call(pennon, 'GET', `${STATS}/csv`, undefined, { token: viewer })).status, 200)
    assert.equal((await call(pennon, 'GET', STATS, undefined, { token: null })).status, 401)
    const client = await apiToken(pennon, 'client')
    assert.equal((await call(pennon, 'GET', `${STATS}/csv`, undefined, { token: client })).status, 403)
    const open = await useTestApp(t, database, { env: { AUTH_TYPE: 'none' } })
    const stats = await call(open, 'GET', STATS, undefined, { token: null })
    assert.equal(stats.status, 200)
    assert.equal(stats.body.passwordAuthEnabled, false)
  })
})
