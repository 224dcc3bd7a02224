/**
 * Completeness audit of the event log: every write endpoint of the OpenAPI document is
 * driven once here and the exact events it wrote are checked — one group per request,
 * the caller as author, the API objects as data — and a failed write writes nothing.
 * Each endpoint's check is a subtest named by its route; they run in order on one app, each
 * on what the ones before left, so the first to fail stops the rest.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { allEvents, call, eventually, onEachDatabase, useTestApp, type ApiResponse, type TestApp } from './test-app.ts'
import { asBrowser, PASSWORD } from './people.ts'
import { checkOneRequest } from './helpers/events.ts'

// The client secret of the single sign-on settings: never in an event.
const OIDC_SECRET = 'oidc-client-secret-for-the-audit'

interface Expected {
  type: string
  featureName?: string | null
  project?: string | null
  environment?: string | null
  data?: unknown
  preData?: unknown
  /** The flag's tags, `[{value, type}]` (events about a tagged flag) */
  tags?: unknown[]
}

/** Runs one request and returns the events it added, checked to be one group by the admin token. */
async function eventsOf(pennon: TestApp, request: () => Promise<ApiResponse>, status: number): Promise<any[]> {
  const before = (await allEvents(pennon)).length
  const response = await request()
  assert.equal(response.status, status, response.text)
  const added = (await allEvents(pennon)).slice(before)
  // A refused write writes none.
  return added.length === 0 ? added : [...checkOneRequest(added)]
}

function expectEvents(actual: any[], expected: Expected[]): void {
  assert.deepEqual(
    actual.map((e) => ({
      type: e.type,
      featureName: e.featureName,
      project: e.project,
      environment: e.environment,
      data: e.data,
      preData: e.preData,
      tags: e.tags,
    })),
    expected.map((e) => ({ featureName: null, project: null, environment: null, data: null, preData: null, tags: [], ...e })),
  )
}

onEachDatabase('event log completeness', (database) => {
  test('every write endpoint records exactly its events; failed writes record none; no secret is ever recorded', async (t) => {
    const pennon = await useTestApp(t, database)
    const covered = new Set<string>()
    /** A subtest named `name`; when it fails, the test stops (what follows builds on it). */
    const step = async <T>(name: string, check: () => Promise<T>): Promise<T> => {
      let result!: T
      let failed = false
      await t.test(name, async () => {
        try {
          result = await check()
        } catch (error) {
          failed = true
          throw error
        }
      })
      if (failed) throw new Error(`stopped: ${name} failed`)
      return result
    }
    const run = (
      method: 'POST' | 'PUT' | 'PATCH' | 'DELETE',
      route: string,
      url: string,
      body: unknown,
      status: number,
      expected: Expected[] | ((r: ApiResponse) => Expected[]),
    ) => {
      covered.add(`${method} ${route}`)
      return step(`${method} ${route}`, async () => {
        let response!: ApiResponse
        const events = await eventsOf(pennon, async () => (response = await call(pennon, method, url, body)), status)
        expectEvents(events, typeof expected === 'function' ? expected(response) : expected)
        return response
      })
    }
    const P = '/api/admin/projects'

    const project = await run('POST', '/api/admin/projects', P, { id: 'audit', name: 'Audit' }, 201, (r) => [
      { type: 'project-created', project: 'audit', data: r.body },
    ])
    const features: Record<string, any> = {}
    for (const name of ['parent', 'child', 'other']) {
      const r = await run('POST', '/api/admin/projects/{projectId}/features', `${P}/audit/features`, { name }, 201, (r) => [
        { type: 'feature-created', featureName: name, project: 'audit', data: r.body },
      ])
      features[name] = r.body
    }
    const deps = '/api/admin/projects/{projectId}/features/{child}/dependencies'
    await run('POST', deps, `${P}/audit/features/child/dependencies`, { feature: 'parent', variants: ['v'] }, 200, [
      {
        type: 'feature-dependency-added',
        featureName: 'child',
        project: 'audit',
        data: { feature: 'parent', enabled: true, variants: ['v'] },
      },
    ])
    await run('POST', deps, `${P}/audit/features/child/dependencies`, { feature: 'other', enabled: false }, 200, [
      { type: 'feature-dependency-removed', featureName: 'child', project: 'audit', data: { feature: 'parent' } },
      { type: 'feature-dependency-added', featureName: 'child', project: 'audit', data: { feature: 'other', enabled: false } },
    ])
    await run('DELETE', `${deps}/{parent}`, `${P}/audit/features/child/dependencies/other`, undefined, 200, [
      { type: 'feature-dependency-removed', featureName: 'child', project: 'audit', data: { feature: 'other' } },
    ])
    await call(pennon, 'POST', `${P}/audit/features/child/dependencies`, { feature: 'parent' })
    await run('DELETE', deps, `${P}/audit/features/child/dependencies`, undefined, 200, [
      { type: 'feature-dependencies-removed', featureName: 'child', project: 'audit' },
    ])
    await call(pennon, 'POST', `${P}/audit/features/child/dependencies`, { feature: 'parent' })
    // A copy takes the flag's dependency along (its strategies: src/features/flag-environments/flag-clone.api.test.ts).
    await run(
      'POST',
      '/api/admin/projects/{projectId}/features/{featureName}/clone',
      `${P}/audit/features/child/clone`,
      { name: 'child-copy' },
      201,
      (r) => [
        { type: 'feature-created', featureName: 'child-copy', project: 'audit', data: r.body },
        { type: 'feature-dependency-added', featureName: 'child-copy', project: 'audit', data: { feature: 'parent', enabled: true } },
      ],
    )
    // Gone again, so the project's flags are as the steps below expect.
    await call(pennon, 'DELETE', `${P}/audit/features/child-copy/dependencies`)
    await call(pennon, 'DELETE', `${P}/audit/features/child-copy`)
    assert.equal((await call(pennon, 'POST', `${P}/audit/delete`, { features: ['child-copy'] })).status, 200)
    // A flag's links.
    const link = '/api/admin/projects/{projectId}/features/{featureName}/link'
    const onOther = { featureName: 'other', project: 'audit' }
    await run('POST', link, `${P}/audit/features/other/link`, { url: 'issues.example.com/T-1', title: 'Ticket' }, 204, [
      { type: 'feature-link-added', ...onOther, data: { url: 'https://issues.example.com/T-1', title: 'Ticket' } },
    ])
    const [{ id: linkId }] = (await call(pennon, 'GET', `${P}/audit/features/other`)).body.links
    await run('PUT', `${link}/{linkId}`, `${P}/audit/features/other/link/${linkId}`, { url: 'https://dash.example.com/1' }, 204, [
      {
        type: 'feature-link-updated',
        ...onOther,
        data: { url: 'https://dash.example.com/1' },
        preData: { url: 'https://issues.example.com/T-1', title: 'Ticket' },
      },
    ])
    await run('DELETE', `${link}/{linkId}`, `${P}/audit/features/other/link/${linkId}`, undefined, 204, [
      { type: 'feature-link-removed', ...onOther, preData: { url: 'https://dash.example.com/1' } },
    ])
    // Environments, switching on and off, strategies and variants.
    await run('POST', '/api/admin/environments', '/api/admin/environments', { name: 'staging', type: 'test' }, 201, (r) => {
      assert.equal(r.headers.location, 'environments/staging')
      return [
        {
          type: 'environment-created',
          environment: 'staging',
          data: { name: 'staging', type: 'test', enabled: true, protected: false, sortOrder: 4 },
        },
      ]
    })
    // An environment's instance-wide switch and sort order: environment-updated per environment changed.
    const staging = { name: 'staging', type: 'test', enabled: true, protected: false, sortOrder: 4 }
    await run('POST', '/api/admin/environments/{name}/off', '/api/admin/environments/staging/off', undefined, 204, [
      { type: 'environment-updated', environment: 'staging', data: { ...staging, enabled: false }, preData: staging },
    ])
    await run('POST', '/api/admin/environments/{name}/on', '/api/admin/environments/staging/on', undefined, 204, [
      { type: 'environment-updated', environment: 'staging', data: staging, preData: { ...staging, enabled: false } },
    ])
    await run('PUT', '/api/admin/environments/sort-order', '/api/admin/environments/sort-order', { staging: 7 }, 200, [
      { type: 'environment-updated', environment: 'staging', data: { ...staging, sortOrder: 7 }, preData: staging },
    ])
    const projectEnvironments = '/api/admin/projects/{projectId}/environments'
    await run('POST', projectEnvironments, `${P}/audit/environments`, { environment: 'staging' }, 200, [
      { type: 'project-environment-added', project: 'audit', environment: 'staging' },
    ])
    // A project's default strategy (in development, which the steps below never switch on).
    const defaultStrategy = '/api/admin/projects/{projectId}/environments/{environment}/default-strategy'
    const half = { name: 'flexibleRollout', parameters: { rollout: '50' } }
    await run('POST', defaultStrategy, `${P}/audit/environments/development/default-strategy`, half, 200, [
      { type: 'default-strategy-updated', project: 'audit', environment: 'development', data: half },
    ])
    await run('POST', defaultStrategy, `${P}/audit/environments/development/default-strategy`, { name: 'flexibleRollout' }, 200, [
      { type: 'default-strategy-updated', project: 'audit', environment: 'development', data: { name: 'flexibleRollout' }, preData: half },
    ])
    const place = '/api/admin/projects/{projectId}/features/{featureName}/environments/{environment}'
    const at = (env: string) => ({ featureName: 'other', project: 'audit', environment: env })
    // Switching on where there is no strategy adds the default one first.
    covered.add(`POST ${place}/on`)
    await step(`POST ${place}/on`, async () => {
      const switchedOn = await eventsOf(pennon, () => call(pennon, 'POST', `${P}/audit/features/other/environments/staging/on`), 200)
      const [defaultStrategy] = (await call(pennon, 'GET', `${P}/audit/features/other/environments/staging/strategies`)).body
      expectEvents(switchedOn, [
        { type: 'feature-strategy-add', ...at('staging'), data: defaultStrategy },
        { type: 'feature-environment-enabled', ...at('staging') },
      ])
    })
    await run('POST', `${place}/off`, `${P}/audit/features/other/environments/staging/off`, undefined, 200, [
      { type: 'feature-environment-disabled', ...at('staging') },
    ])
    const bulk = '/api/admin/projects/{projectId}/bulk_features/environments/{environment}'
    await run('POST', `${bulk}/on`, `${P}/audit/bulk_features/environments/staging/on`, { features: ['other'] }, 200, [
      { type: 'feature-environment-enabled', ...at('staging') },
    ])
    await run('POST', `${bulk}/off`, `${P}/audit/bulk_features/environments/staging/off`, { features: ['other'] }, 200, [
      { type: 'feature-environment-disabled', ...at('staging') },
    ])
    const strategies = `${place}/strategies`
    const added = await run(
      'POST',
      strategies,
      `${P}/audit/features/other/environments/production/strategies`,
      { name: 'default' },
      200,
      (r) => [{ type: 'feature-strategy-add', ...at('production'), data: r.body }],
    )
    const strategyUrl = `${P}/audit/features/other/environments/production/strategies/${added.body.id}`
    const titled = await run('PUT', `${strategies}/{strategyId}`, strategyUrl, { title: 'everyone' }, 200, (r) => [
      { type: 'feature-strategy-update', ...at('production'), data: r.body, preData: added.body },
    ])
    const patched = await run(
      'PATCH',
      `${strategies}/{strategyId}`,
      strategyUrl,
      [{ op: 'replace', path: '/title', value: 'all' }],
      200,
      (r) => [{ type: 'feature-strategy-update', ...at('production'), data: r.body, preData: titled.body }],
    )
    const second = await call(pennon, 'POST', `${P}/audit/features/other/environments/production/strategies`, { name: 'default' })
    await run(
      'POST',
      `${strategies}/set-sort-order`,
      `${P}/audit/features/other/environments/production/strategies/set-sort-order`,
      [{ id: second.body.id, sortOrder: -1 }],
      200,
      [
        {
          type: 'strategy-order-changed',
          ...at('production'),
          data: { strategyIds: [second.body.id, added.body.id], sortOrders: [-1, 0] },
          preData: { strategyIds: [added.body.id, second.body.id], sortOrders: [0, 1] },
        },
      ],
    )
    await run('DELETE', `${strategies}/{strategyId}`, strategyUrl, undefined, 200, [
      { type: 'feature-strategy-remove', ...at('production'), preData: patched.body },
    ])
    // Strategy definitions: a custom one, and the deprecation of a built-in one.
    const definitions = '/api/admin/strategies'
    const definition = await run(
      'POST',
      definitions,
      definitions,
      { name: 'audit-tier', parameters: [{ name: 'tiers', type: 'list' }] },
      201,
      (r) => [{ type: 'strategy-created', data: r.body }],
    )
    const redefined = { ...definition.body, description: 'By tier', parameters: [] }
    await run('PUT', `${definitions}/{name}`, `${definitions}/audit-tier`, { description: 'By tier', parameters: [] }, 200, [
      { type: 'strategy-updated', data: redefined, preData: definition.body },
    ])
    await run('POST', `${definitions}/{strategyName}/deprecate`, `${definitions}/default/deprecate`, undefined, 200, [
      { type: 'strategy-deprecated', data: { name: 'default' } },
    ])
    await run('POST', `${definitions}/{strategyName}/reactivate`, `${definitions}/default/reactivate`, undefined, 200, [
      { type: 'strategy-reactivated', data: { name: 'default' } },
    ])
    await run('DELETE', `${definitions}/{name}`, `${definitions}/audit-tier`, undefined, 200, [
      { type: 'strategy-deleted', data: { name: 'audit-tier' }, preData: redefined },
    ])
    const variants = [{ name: 'blue', weight: 1000, weightType: 'variable', stickiness: 'default', overrides: [] }]
    await run('PUT', `${place}/variants`, `${P}/audit/features/other/environments/production/variants`, [{ name: 'blue' }], 200, [
      { type: 'feature-environment-variants-updated', ...at('production'), data: { variants }, preData: { variants: [] } },
    ])
    await run(
      'PATCH',
      `${place}/variants`,
      `${P}/audit/features/other/environments/production/variants`,
      [{ op: 'remove', path: '/0' }],
      200,
      [{ type: 'feature-environment-variants-updated', ...at('production'), data: { variants: [] }, preData: { variants } }],
    )
    await run(
      'PUT',
      '/api/admin/projects/{projectId}/features/{featureName}/variants-batch',
      `${P}/audit/features/other/variants-batch`,
      { variants: [{ name: 'blue' }], environments: ['production'] },
      200,
      [{ type: 'feature-environment-variants-updated', ...at('production'), data: { variants }, preData: { variants: [] } }],
    )
    // Reverting a change writes the events of the equivalent change; its dry run writes none.
    const revertRoute = '/api/admin/events/{id}/revert'
    const batched = (await allEvents(pennon)).at(-1)
    await run('POST', revertRoute, `/api/admin/events/${batched.id}/revert?dryRun=true`, undefined, 200, [])
    await run('POST', revertRoute, `/api/admin/events/${batched.id}/revert`, undefined, 200, [
      { type: 'feature-environment-variants-updated', ...at('production'), data: { variants: [] }, preData: { variants } },
    ])
    // Export and validate write nothing; an import writes the events of its changes, closed by features-imported.
    const batch = '/api/admin/features-batch'
    await run('POST', `${batch}/export`, `${batch}/export`, { environment: 'production', project: 'audit' }, 200, [])
    const nothingNew = { project: 'audit', environment: 'production', data: { features: [], featureStrategies: [], tagTypes: [] } }
    await run('POST', `${batch}/validate`, `${batch}/validate`, nothingNew, 200, [])
    await run('POST', `${batch}/import`, `${batch}/import`, nothingNew, 200, [
      { type: 'features-imported', project: 'audit', environment: 'production' },
    ])
    // A flag's metadata, stale marking, flag types and the project itself.
    const flagUrl = `${P}/audit/features/other`
    const withoutRead = ({ potentiallyStale: _p, ...flag }: any) => flag
    const described = await run(
      'PUT',
      '/api/admin/projects/{projectId}/features/{name}',
      flagUrl,
      { description: 'audited', stale: true },
      200,
      (r) => [
        { type: 'feature-metadata-updated', featureName: 'other', project: 'audit', data: withoutRead(r.body), preData: features.other },
        { type: 'feature-stale-on', featureName: 'other', project: 'audit' },
      ],
    )
    await run(
      'PATCH',
      '/api/admin/projects/{projectId}/features/{name}',
      flagUrl,
      [{ op: 'replace', path: '/stale', value: false }],
      200,
      (r) => [
        {
          type: 'feature-metadata-updated',
          featureName: 'other',
          project: 'audit',
          data: withoutRead(r.body),
          preData: withoutRead(described.body),
        },
        { type: 'feature-stale-off', featureName: 'other', project: 'audit' },
      ],
    )
    await run('POST', '/api/admin/projects/{projectId}/stale', `${P}/audit/stale`, { features: ['other', 'ghost'], stale: true }, 202, [
      { type: 'feature-stale-on', featureName: 'other', project: 'audit' },
    ])
    // A flag's lifecycle: completed, then back; the same again records nothing.
    const lifecycle = '/api/admin/projects/{projectId}/features/{featureName}/lifecycle'
    await run('POST', `${lifecycle}/complete`, `${P}/audit/features/other/lifecycle/complete`, { status: 'discarded' }, 200, [
      { type: 'feature-completed', featureName: 'other', project: 'audit', data: { status: 'discarded', kept: false } },
    ])
    await run('POST', `${lifecycle}/uncomplete`, `${P}/audit/features/other/lifecycle/uncomplete`, undefined, 200, [
      { type: 'feature-uncompleted', featureName: 'other', project: 'audit' },
    ])
    await run('POST', `${lifecycle}/uncomplete`, `${P}/audit/features/other/lifecycle/uncomplete`, undefined, 200, [])
    const release = (await call(pennon, 'GET', '/api/admin/feature-types')).body.types[0]
    await run('PUT', '/api/admin/feature-types/{id}/lifetime', '/api/admin/feature-types/release/lifetime', { lifetimeDays: 30 }, 200, [
      { type: 'feature-type-updated', data: { ...release, lifetimeDays: 30 }, preData: release },
    ])
    // Maintenance mode, as the reference records its setting: created the first time, updated after; the same again records nothing.
    const maintenance = '/api/admin/maintenance'
    await run('POST', maintenance, maintenance, { enabled: true }, 204, [
      { type: 'setting-created', data: { id: 'maintenance.mode', enabled: true } },
    ])
    await run('POST', maintenance, maintenance, { enabled: false }, 204, [
      { type: 'setting-updated', data: { id: 'maintenance.mode', enabled: false }, preData: { enabled: true } },
    ])
    await run('POST', maintenance, maintenance, { enabled: false }, 204, [])
    // The frontend API's origins, as the reference records its `unleash.frontend` setting.
    const cors = '/api/admin/ui-config/cors'
    await run('POST', cors, cors, { frontendApiOrigins: ['https://shop.example'] }, 204, [
      { type: 'setting-created', data: { id: 'unleash.frontend', frontendApiOrigins: ['https://shop.example'] } },
    ])
    await run('POST', cors, cors, { frontendApiOrigins: ['*'] }, 204, [
      {
        type: 'setting-updated',
        data: { id: 'unleash.frontend', frontendApiOrigins: ['*'] },
        preData: { frontendApiOrigins: ['https://shop.example'] },
      },
    ])
    // Single sign-on, as the reference records its settings, never with the client secret; password sign-in off and on again.
    const oidc = '/api/admin/auth/oidc/settings'
    const sso = {
      enabled: true,
      discoverUrl: 'https://login.example.com',
      clientId: 'pennon',
      autoCreate: false,
      defaultRootRole: 'Viewer',
      defaultRootRoleId: 3,
      emailDomains: '',
      enableSingleSignOut: false,
      acrValues: '',
      idTokenSigningAlgorithm: 'RS256',
      addGroupsScope: false,
      groupJsonPath: '',
      rootRoleGroups: { Admin: [], Editor: [], Viewer: [] },
    }
    await run('POST', oidc, oidc, { ...sso, secret: OIDC_SECRET }, 200, [
      { type: 'setting-created', data: { id: 'unleash.enterprise.auth.oidc', ...sso } },
    ])
    // Testing the connection stores nothing (plain http elsewhere than this machine: refused before any request).
    await run('POST', '/api/admin/auth/oidc/test', '/api/admin/auth/oidc/test', { discoverUrl: 'http://login.example.com' }, 200, [])
    const simple = '/api/admin/auth/simple/settings'
    await run('POST', simple, simple, { disabled: true }, 200, [
      { type: 'setting-created', data: { id: 'unleash.auth.simple', disabled: true } },
    ])
    await run('POST', simple, simple, { disabled: false }, 200, [
      { type: 'setting-updated', data: { id: 'unleash.auth.simple', disabled: false }, preData: { disabled: true } },
    ])
    await run('POST', oidc, oidc, { ...sso, enabled: false }, 200, [
      { type: 'setting-updated', data: { id: 'unleash.enterprise.auth.oidc', ...sso, enabled: false }, preData: sso },
    ])
    // Edge's token issue: refused (Pennon has no Edge clients), nothing recorded.
    await run('POST', '/edge/issue-token', '/edge/issue-token', { tokens: [{ environment: 'development', projects: ['*'] }] }, 401, [])
    // An admin's application: no event, as the reference (its application-created comes from a job Pennon has not).
    const application = '/api/admin/metrics/applications/{appName}'
    await run('POST', application, '/api/admin/metrics/applications/audit-app', { color: 'red' }, 202, [])
    await run('DELETE', application, '/api/admin/metrics/applications/audit-app', undefined, 200, [])
    const renamed = await run(
      'PUT',
      '/api/admin/projects/{projectId}',
      `${P}/audit`,
      { name: 'Audited', description: 'for the audit' },
      200,
      (r) => [{ type: 'project-updated', project: 'audit', data: r.body, preData: project.body }],
    )
    await run('DELETE', `${projectEnvironments}/{environment}`, `${P}/audit/environments/staging`, undefined, 200, [
      { type: 'project-environment-removed', project: 'audit', environment: 'staging' },
    ])

    await run('POST', '/api/admin/projects/{projectId}/archive/validate', `${P}/audit/archive/validate`, { features: ['parent'] }, 200, [])
    await run('POST', '/api/admin/projects/{projectId}/archive', `${P}/audit/archive`, { features: ['parent', 'child'] }, 202, [
      { type: 'feature-dependencies-removed', featureName: 'child', project: 'audit' },
      { type: 'feature-archived', featureName: 'child', project: 'audit' },
      { type: 'feature-archived', featureName: 'parent', project: 'audit' },
    ])
    await run('POST', '/api/admin/projects/{projectId}/revive', `${P}/audit/revive`, { features: ['parent'] }, 200, [
      { type: 'feature-revived', featureName: 'parent', project: 'audit' },
    ])
    await run('DELETE', '/api/admin/projects/{projectId}/features/{name}', `${P}/audit/features/other`, undefined, 202, [
      { type: 'feature-archived', featureName: 'other', project: 'audit' },
    ])
    // The frontend API's POST reads: evaluating flags for a context records nothing.
    const frontendToken = (await call(pennon, 'POST', '/api/admin/api-tokens', { tokenName: 'audit-frontend', type: 'frontend' })).body
      .secret
    covered.add('POST /api/frontend')
    await step('POST /api/frontend', async () => {
      assert.deepEqual(
        await eventsOf(pennon, () => call(pennon, 'POST', '/api/frontend', { context: { userId: 'u' } }, { token: frontendToken }), 200),
        [],
      )
    })
    // OpenFeature's evaluations (OFREP) read as the frontend API does: they record nothing.
    for (const [route, url] of [
      ['POST /ofrep/v1/evaluate/flags/{key}', '/ofrep/v1/evaluate/flags/parent'],
      ['POST /ofrep/v1/evaluate/flags', '/ofrep/v1/evaluate/flags'],
    ] as const) {
      covered.add(route)
      await step(route, async () => {
        assert.deepEqual(
          await eventsOf(pennon, () => call(pennon, 'POST', url, { context: { targetingKey: 'u' } }, { token: frontendToken }), 200),
          [],
        )
      })
    }
    assert.equal((await call(pennon, 'DELETE', '/api/admin/api-tokens/audit-frontend')).status, 200)
    // The playground reads: explaining flags for a context records nothing.
    await run(
      'POST',
      '/api/admin/playground',
      '/api/admin/playground',
      { environment: 'production', context: { appName: 'audit', userId: 'u' } },
      200,
      [],
    )
    await run(
      'POST',
      '/api/admin/playground/advanced',
      '/api/admin/playground/advanced',
      { environments: ['production'], context: { appName: 'audit', userId: 'u,v' } },
      200,
      [],
    )
    // SDK metrics and registrations record no event (nor does the reference, per report).
    const bucket = { start: new Date().toISOString(), stop: new Date().toISOString(), toggles: { parent: { yes: 1, no: 0 } } }
    const registration = { appName: 'audit-app', strategies: ['default'], started: new Date().toISOString(), interval: 1000 }
    await run('POST', '/api/client/metrics', '/api/client/metrics', { appName: 'audit-app', bucket }, 202, [])
    await run(
      'POST',
      '/api/client/metrics/bulk',
      '/api/client/metrics/bulk',
      {
        applications: [{ appName: 'audit-app', instanceId: 'i', environment: 'development' }],
        metrics: [{ featureName: 'parent', appName: 'audit-app', environment: 'development', yes: 1 }],
      },
      202,
      [],
    )
    await run('POST', '/api/client/register', '/api/client/register', registration, 202, [])
    await run('POST', '/api/frontend/client/metrics', '/api/frontend/client/metrics', { appName: 'audit-app', bucket }, 200, [])
    await run('POST', '/api/frontend/client/register', '/api/frontend/client/register', registration, 200, [])
    // Unleash Edge's report of itself and its token validation record none either.
    await run(
      'POST',
      '/api/client/metrics/edge',
      '/api/client/metrics/edge',
      { identifier: 'audit-edge-1', appName: 'audit-edge', edgeVersion: '20.1.4', started: new Date().toISOString() },
      202,
      [],
    )
    await run('POST', '/edge/validate', '/edge/validate', { tokens: [pennon.adminToken, 'default:development.unknown'] }, 200, [])

    const archivedFlag = async (name: string) => {
      const {
        dependencies: _d,
        children: _c,
        environments: _e,
        potentiallyStale: _p,
        lastSeenAt: _l,
        links: _links,
        lifecycle: _stage,
        favorite: _favorite,
        ...flag
      } = (await call(pennon, 'GET', `${P}/audit/features/${name}`)).body
      return flag
    }
    const [archivedChild, archivedOther] = [await archivedFlag('child'), await archivedFlag('other')]
    assert.equal(archivedChild.archived, true)
    await run('POST', '/api/admin/projects/{projectId}/delete', `${P}/audit/delete`, { features: ['child', 'other'] }, 200, [
      { type: 'feature-deleted', featureName: 'child', project: 'audit', preData: archivedChild },
      { type: 'feature-deleted', featureName: 'other', project: 'audit', preData: archivedOther },
    ])
    // The legacy archive routes, by flag name: the same events as the project routes. Then the project is empty, to be deleted at the end.
    assert.equal((await call(pennon, 'DELETE', `${P}/audit/features/parent`)).status, 202)
    await run('POST', '/api/admin/archive/revive/{featureName}', '/api/admin/archive/revive/parent', undefined, 200, [
      { type: 'feature-revived', featureName: 'parent', project: 'audit' },
    ])
    assert.equal((await call(pennon, 'DELETE', `${P}/audit/features/parent`)).status, 202)
    const archivedParent = await archivedFlag('parent')
    await run('DELETE', '/api/admin/archive/{featureName}', '/api/admin/archive/parent', undefined, 200, [
      { type: 'feature-deleted', featureName: 'parent', project: 'audit', preData: archivedParent },
    ])
    // Validations write nothing.
    await run('POST', '/api/admin/features/validate', '/api/admin/features/validate', { name: 'free-flag' }, 200, [])
    await run('POST', '/api/admin/segments/validate', '/api/admin/segments/validate', { name: 'free-segment' }, 204, [])
    const constraint = { contextName: 'userId', operator: 'IN', values: ['a'] }
    await run('POST', '/api/admin/constraints/validate', '/api/admin/constraints/validate', constraint, 204, [])

    const segmentBody = { name: 'audit-segment', project: 'audit', constraints: [{ contextName: 'userId', operator: 'IN', values: ['a'] }] }
    const segment = await run('POST', '/api/admin/segments', '/api/admin/segments', segmentBody, 201, (r) => [
      { type: 'segment-created', project: 'audit', data: r.body },
    ])
    // A strategy's segments set by its id: the strategy's update, as a PUT of the same change.
    assert.equal((await call(pennon, 'POST', `${P}/audit/features`, { name: 'segment-user' })).status, 201)
    const plain = (await call(pennon, 'POST', `${P}/audit/features/segment-user/environments/production/strategies`, { name: 'default' }))
      .body
    const strategySegments = { projectId: 'audit', environmentId: 'production', strategyId: plain.id }
    await run(
      'POST',
      '/api/admin/segments/strategies',
      '/api/admin/segments/strategies',
      { ...strategySegments, segmentIds: [segment.body.id] },
      201,
      [
        {
          type: 'feature-strategy-update',
          featureName: 'segment-user',
          project: 'audit',
          environment: 'production',
          data: { ...plain, segments: [segment.body.id] },
          preData: plain,
        },
      ],
    )
    assert.equal((await call(pennon, 'POST', '/api/admin/segments/strategies', { ...strategySegments, segmentIds: [] })).status, 201)
    assert.equal((await call(pennon, 'DELETE', `${P}/audit/features/segment-user`)).status, 202)
    assert.equal((await call(pennon, 'DELETE', '/api/admin/archive/segment-user')).status, 200)
    const updated = { ...segment.body, description: 'now described' }
    await run(
      'PUT',
      '/api/admin/segments/{id}',
      `/api/admin/segments/${segment.body.id}`,
      { ...segmentBody, description: 'now described' },
      204,
      [{ type: 'segment-updated', project: 'audit', data: updated, preData: segment.body }],
    )
    await run('DELETE', '/api/admin/segments/{id}', `/api/admin/segments/${segment.body.id}`, undefined, 204, [
      { type: 'segment-deleted', project: 'audit', preData: updated },
    ])

    const token = await run(
      'POST',
      '/api/admin/api-tokens',
      '/api/admin/api-tokens',
      { tokenName: 'audit-token', type: 'client', projects: ['audit'] },
      201,
      (r) => {
        const { secret: _secret, ...data } = r.body
        return [{ type: 'api-token-created', project: 'audit', environment: 'development', data }]
      },
    )
    const { secret, ...createdData } = token.body
    // The token is named by its secret; an expiry is sent with an offset and stored in UTC.
    const tokenData = { ...createdData, expiresAt: '2100-01-01T00:00:00.000Z' }
    await run('PUT', '/api/admin/api-tokens/{token}', `/api/admin/api-tokens/${secret}`, { expiresAt: '2100-01-01T02:00:00+02:00' }, 200, [
      { type: 'api-token-updated', project: 'audit', environment: 'development', data: tokenData, preData: createdData },
    ])
    await run('DELETE', '/api/admin/api-tokens/{tokenName}', '/api/admin/api-tokens/audit-token', undefined, 200, [
      { type: 'api-token-deleted', project: 'audit', environment: 'development', preData: tokenData },
    ])
    const projectToken = await run(
      'POST',
      `${P}/{projectId}/api-tokens`,
      `${P}/audit/api-tokens`,
      { tokenName: 'audit-project-token', type: 'frontend', environment: 'production' },
      201,
      (r) => {
        const { secret: _secret, ...data } = r.body
        return [{ type: 'api-token-created', project: 'audit', environment: 'production', data }]
      },
    )
    const { secret: projectSecret, ...projectTokenData } = projectToken.body
    await run('DELETE', `${P}/{projectId}/api-tokens/{token}`, `${P}/audit/api-tokens/${projectSecret}`, undefined, 200, [
      { type: 'api-token-deleted', project: 'audit', environment: 'production', preData: projectTokenData },
    ])
    const account = await run(
      'POST',
      '/api/admin/service-account',
      '/api/admin/service-account',
      { username: 'auditor', name: 'Auditor', rootRole: 3 },
      201,
      (r) => [{ type: 'service-account-created', data: r.body }],
    )
    const accountToken = await run(
      'POST',
      '/api/admin/service-account/{id}/token',
      `/api/admin/service-account/${account.body.id}/token`,
      { description: 'ci', expiresAt: null },
      201,
      (r) => [
        { type: 'service-account-token-created', data: { id: r.body.id, description: 'ci', expiresAt: null, userId: account.body.id } },
      ],
    )
    await run('DELETE', '/api/admin/service-account/{id}', `/api/admin/service-account/${account.body.id}`, undefined, 200, [
      { type: 'service-account-deleted', preData: account.body },
    ])
    // Context fields, through the root API and a project's.
    for (const [context, url, project] of [
      ['/api/admin/context', '/api/admin/context', {}],
      [`${P}/{projectId}/context`, `${P}/audit/context`, { project: 'audit' }],
    ] as const) {
      const field = await run(
        'POST',
        context,
        url,
        { name: `tier-${project.project ?? 'root'}`, legalValues: [{ value: 'gold' }] },
        201,
        (r) => [{ type: 'context-field-created', data: r.body }],
      )
      const name = field.body.name
      const described = { ...field.body, description: 'Support tier' }
      await run(
        'PUT',
        `${context}/{contextField}`,
        `${url}/${name}`,
        { description: 'Support tier', legalValues: [{ value: 'gold' }] },
        200,
        [{ type: 'context-field-updated', data: described, preData: field.body }],
      )
      const silver = { ...described, legalValues: [{ value: 'gold' }, { value: 'silver' }] }
      await run('POST', `${context}/{contextField}/legal-values`, `${url}/${name}/legal-values`, { value: 'silver' }, 200, [
        { type: 'context-field-updated', data: silver, preData: described },
      ])
      await run('DELETE', `${context}/{contextField}/legal-values/{legalValue}`, `${url}/${name}/legal-values/gold`, undefined, 200, [
        { type: 'context-field-updated', data: { ...silver, legalValues: [{ value: 'silver' }] }, preData: silver },
      ])
      await run('POST', `${context}/validate`, `${url}/validate`, { name: 'free-name' }, 200, [])
      await run('DELETE', `${context}/{contextField}`, `${url}/${name}`, undefined, 200, [
        { type: 'context-field-deleted', preData: { ...silver, legalValues: [{ value: 'silver' }] } },
      ])
    }
    await run('DELETE', '/api/admin/projects/{projectId}', `${P}/audit`, undefined, 200, [
      { type: 'project-deleted', project: 'audit', preData: renamed.body },
    ])

    // Tag types, tags and the tags of flags; events about a tagged flag record its tags.
    const tagTypes = '/api/admin/tag-types'
    const team = { name: 'team', description: 'Owning team', icon: null, color: '#123456' }
    await run('POST', tagTypes, tagTypes, { name: 'team', description: 'Owning team', color: '#123456' }, 201, [
      { type: 'tag-type-created', data: team },
    ])
    await run('POST', `${tagTypes}/validate`, `${tagTypes}/validate`, { name: 'unused' }, 200, [])
    const teamWithIcon = { ...team, icon: 'people' }
    await run('PUT', `${tagTypes}/{name}`, `${tagTypes}/team`, { icon: 'people' }, 200, [
      { type: 'tag-type-updated', data: teamWithIcon, preData: team },
    ])
    const core = { type: 'team', value: 'core' }
    const web = { type: 'simple', value: 'web' }
    await run('POST', '/api/admin/tags', '/api/admin/tags', core, 201, [{ type: 'tag-created', data: core }])
    assert.equal((await call(pennon, 'POST', `${P}/default/features`, { name: 'tagged' })).status, 201)
    const flagTags = '/api/admin/features/{featureName}/tags'
    const onFlag = { featureName: 'tagged', project: 'default' }
    await run('POST', flagTags, '/api/admin/features/tagged/tags', web, 201, [
      { type: 'tag-created', data: web },
      { type: 'feature-tagged', ...onFlag, data: web, tags: [{ value: 'web', type: 'simple' }] },
    ])
    await run('PUT', flagTags, '/api/admin/features/tagged/tags', { addedTags: [core], removedTags: [web] }, 200, [
      { type: 'feature-tagged', ...onFlag, data: core, tags: [{ value: 'core', type: 'team' }] },
      { type: 'feature-untagged', ...onFlag, preData: web, tags: [{ value: 'core', type: 'team' }] },
    ])
    await run('DELETE', `${flagTags}/{type}/{value}`, '/api/admin/features/tagged/tags/team/core', undefined, 200, [
      { type: 'feature-untagged', ...onFlag, preData: core },
    ])
    await run(
      'PUT',
      '/api/admin/projects/{projectId}/tags',
      `${P}/default/tags`,
      { features: ['tagged'], tags: { addedTags: [core], removedTags: [] } },
      200,
      [{ type: 'feature-tagged', ...onFlag, data: core, tags: [{ value: 'core', type: 'team' }] }],
    )
    await run('DELETE', '/api/admin/tags/{type}/{value}', '/api/admin/tags/simple/web', undefined, 200, [
      { type: 'tag-deleted', data: web },
    ])
    await run('DELETE', `${tagTypes}/{name}`, `${tagTypes}/team`, undefined, 200, [
      { type: 'feature-untagged', ...onFlag, preData: core },
      { type: 'tag-deleted', data: core },
      { type: 'tag-type-deleted', preData: teamWithIcon },
    ])

    // People: users (events by the admin); passwords, links, sign-in and sign-out record nothing.
    const users = '/api/admin/user-admin'
    const person = await run('POST', users, users, { email: 'audit@example.com', rootRole: 2, password: PASSWORD }, 201, (r) => [
      { type: 'user-created', data: { id: r.body.id, name: null, username: null, email: 'audit@example.com', rootRole: 2 } },
    ])
    const personData = { id: person.body.id, name: null, username: null, email: 'audit@example.com', rootRole: 2 }
    await run('PUT', `${users}/{id}`, `${users}/${person.body.id}`, { name: 'Audit' }, 200, [
      { type: 'user-updated', data: { ...personData, name: 'Audit' }, preData: personData },
    ])
    await run('POST', `${users}/validate-password`, `${users}/validate-password`, { password: PASSWORD }, 200, [])
    await run('POST', `${users}/{id}/change-password`, `${users}/${person.body.id}/change-password`, { password: PASSWORD }, 200, [])
    const reset = await run('POST', `${users}/reset-password`, `${users}/reset-password`, { id: String(person.body.id) }, 200, [])
    await run('POST', '/auth/reset/validate', '/auth/reset/validate', { token: reset.body.resetPasswordUrl.split('token=')[1] }, 200, [])
    await run('POST', '/auth/reset/validate-password', '/auth/reset/validate-password', { password: PASSWORD }, 200, [])
    await run(
      'POST',
      '/auth/reset/password',
      '/auth/reset/password',
      { token: reset.body.resetPasswordUrl.split('token=')[1], password: PASSWORD },
      200,
      [],
    )
    const login = await run(
      'POST',
      '/auth/simple/login',
      '/auth/simple/login',
      { username: 'audit@example.com', password: PASSWORD },
      200,
      [],
    )
    const cookie = String(login.headers['set-cookie']).split(';')[0]!
    // A person's own changes: their events name them.
    const own = ['POST /api/admin/user/tokens', 'DELETE /api/admin/user/tokens/{id}', 'POST /api/admin/user/change-password']
    for (const route of own) covered.add(route)
    const pat = await step(own.join(', '), async () => {
      const beforeOwn = (await allEvents(pennon)).length
      const expiresAt = new Date(Date.now() + 30 * 86_400_000).toISOString()
      const pat = await call(pennon, 'POST', '/api/admin/user/tokens', { description: 'audit', expiresAt }, asBrowser(cookie))
      assert.equal((await call(pennon, 'DELETE', `/api/admin/user/tokens/${pat.body.id}`, undefined, asBrowser(cookie))).status, 200)
      assert.equal(
        (await call(pennon, 'POST', '/api/admin/user/change-password', { password: PASSWORD, oldPassword: PASSWORD }, asBrowser(cookie)))
          .status,
        200,
      )
      const patData = { id: pat.body.id, description: 'audit', expiresAt, userId: person.body.id }
      assert.deepEqual(
        (await allEvents(pennon)).slice(beforeOwn).map((e) => [e.type, e.createdBy, e.createdByUserId, e.data, e.preData]),
        [
          ['pat-created', 'audit@example.com', person.body.id, patData, null],
          ['pat-deleted', 'audit@example.com', person.body.id, patData, null],
        ],
      )
      return pat
    })
    // A person's favorites: their events name them; marking twice (or removing what is not there) records nothing.
    const favoriteRoutes = [
      'POST /api/admin/projects/{projectId}/features/{featureName}/favorites',
      'DELETE /api/admin/projects/{projectId}/features/{featureName}/favorites',
      'POST /api/admin/projects/{projectId}/favorites',
      'DELETE /api/admin/projects/{projectId}/favorites',
    ]
    for (const route of favoriteRoutes) covered.add(route)
    await step(favoriteRoutes.join(', '), async () => {
      assert.equal((await call(pennon, 'POST', `${P}/default/features`, { name: 'favorite-one' })).status, 201)
      const before = (await allEvents(pennon)).length
      const flagFavorites = `${P}/default/features/favorite-one/favorites`
      for (const [method, url] of [
        ['POST', flagFavorites],
        ['POST', flagFavorites],
        ['DELETE', flagFavorites],
        ['DELETE', flagFavorites],
        ['POST', `${P}/default/favorites`],
        ['DELETE', `${P}/default/favorites`],
      ] as const) {
        const response = await call(pennon, method, url, undefined, asBrowser(cookie))
        assert.equal(response.status, 200, `${method} ${url}: ${response.text}`)
      }
      const [id, email] = [person.body.id, 'audit@example.com']
      assert.deepEqual(
        (await allEvents(pennon)).slice(before).map((e) => [e.type, e.createdBy, e.createdByUserId, e.featureName, e.project, e.data]),
        [
          ['feature-favorited', email, id, 'favorite-one', null, { feature: 'favorite-one' }],
          ['feature-unfavorited', email, id, 'favorite-one', null, { feature: 'favorite-one' }],
          ['project-favorited', email, id, null, 'default', { project: 'default' }],
          ['project-unfavorited', email, id, null, 'default', { project: 'default' }],
        ],
      )
    })
    await run('POST', '/logout', '/logout', undefined, 200, [])
    await run('DELETE', `${users}/{id}`, `${users}/${person.body.id}`, undefined, 200, [
      { type: 'user-deleted', preData: { ...personData, name: 'Audit' } },
    ])
    // Inactive people deleted together, each with its event; SCIM's deletion finds no one.
    const idle = []
    for (const email of ['idle-1@example.com', 'idle-2@example.com']) {
      const created = await call(pennon, 'POST', users, { email, rootRole: 3 })
      assert.equal(created.status, 201)
      idle.push(created.body.id)
    }
    await pennon.database.db
      .updateTable('users')
      .set({ created_at: new Date(Date.now() - 365 * 86_400_000).toISOString() })
      .where('id', 'in', idle)
      .execute()
    await run('POST', `${users}/inactive/delete`, `${users}/inactive/delete`, { ids: idle }, 200, [
      { type: 'user-deleted', preData: { id: idle[0], name: null, username: null, email: 'idle-1@example.com', rootRole: 3 } },
      { type: 'user-deleted', preData: { id: idle[1], name: null, username: null, email: 'idle-2@example.com', rootRole: 3 } },
    ])
    await run('DELETE', `${users}/scim-users`, `${users}/scim-users`, undefined, 200, [])

    // Change requests: production of the default project protected; the admin token is the author,
    // an Editor service account the reviewer (its events name it).
    await call(pennon, 'POST', `${P}/default/features`, { name: 'gated' })
    const gated = { project: 'default', environment: 'production' }
    const cr = `${P}/{projectId}/change-requests`
    const crs = `${P}/default/change-requests`
    const addChange = `${P}/{projectId}/environments/{environment}/change-requests`
    const addUrl = `${P}/default/environments/production/change-requests`
    await run('PUT', `${addChange}/config`, `${addUrl}/config`, { changeRequestsEnabled: true, requiredApprovals: 1 }, 204, [
      {
        type: 'change-request-configuration-updated',
        ...gated,
        data: { changeRequestsEnabled: true, requiredApprovals: 1 },
        preData: { changeRequestsEnabled: false, requiredApprovals: 1 },
      },
    ])
    const change = (r: ApiResponse, index: number) => {
      const made = r.body.features[0].changes[index]
      return { changeRequestId: r.body.id, change: { id: made.id, action: made.action, payload: made.payload } }
    }
    const strategyChange = { feature: 'gated', action: 'addStrategy', payload: { name: 'default' } }
    const draft = await run('POST', addChange, addUrl, strategyChange, 200, (r) => [
      { type: 'change-request-created', ...gated, data: { changeRequestId: r.body.id, state: 'Draft' } },
      { type: 'change-added', featureName: 'gated', ...gated, data: change(r, 0) },
    ])
    const crId = draft.body.id
    await call(pennon, 'POST', addUrl, { feature: 'gated', action: 'updateEnabled', payload: { enabled: true } })
    const withVariants = await call(pennon, 'POST', addUrl, { feature: 'gated', action: 'patchVariant', payload: { variants: [] } })
    await run(
      'DELETE',
      `${cr}/{id}/changes/{changeId}`,
      `${crs}/${crId}/changes/${withVariants.body.features[0].changes[2].id}`,
      undefined,
      200,
      [{ type: 'change-discarded', featureName: 'gated', ...gated, data: change(withVariants, 2) }],
    )
    const edited = { feature: 'gated', action: 'addStrategy', payload: { name: 'default', title: 'all' } }
    await run(
      'PUT',
      `${cr}/{id}/changes/{changeId}`,
      `${crs}/${crId}/changes/${draft.body.features[0].changes[0].id}`,
      edited,
      200,
      (r) => [{ type: 'change-edited', featureName: 'gated', ...gated, data: change(r, 0) }],
    )
    await run('PUT', `${cr}/{id}/title`, `${crs}/${crId}/title`, { title: 'Gated on' }, 200, [])
    await run('POST', `${cr}/{id}/comments`, `${crs}/${crId}/comments`, { text: 'ready' }, 200, [])
    await run('PUT', `${cr}/{id}/state`, `${crs}/${crId}/state`, { state: 'In review' }, 200, [
      { type: 'change-request-sent-to-review', ...gated, data: { changeRequestId: crId, state: 'In review' } },
    ])
    const reviewerAccount = await call(pennon, 'POST', '/api/admin/service-account', {
      username: 'reviewer',
      name: 'Reviewer',
      rootRole: 2,
    })
    const reviewerToken = (
      await call(pennon, 'POST', `/api/admin/service-account/${reviewerAccount.body.id}/token`, { description: 'r', expiresAt: null })
    ).body.secret
    const asReviewer = async (id: number, state: string, expected: Expected[]) => {
      const before = (await allEvents(pennon)).length
      const response = await call(pennon, 'PUT', `${crs}/${id}/state`, { state }, { token: reviewerToken })
      assert.equal(response.status, 200, response.text)
      expectEvents([...checkOneRequest((await allEvents(pennon)).slice(before), 'reviewer', reviewerAccount.body.id)], expected)
    }
    await step('PUT change request state: Approved by a reviewer', () =>
      asReviewer(crId, 'Approved', [
        { type: 'change-request-approval-added', ...gated, data: { changeRequestId: crId, state: 'In review' } },
        { type: 'change-request-approved', ...gated, data: { changeRequestId: crId, state: 'Approved' } },
      ]),
    )
    await step('PUT change request state: Applied, with the changes’ own events', async () => {
      const events = await eventsOf(pennon, () => call(pennon, 'PUT', `${crs}/${crId}/state`, { state: 'Applied' }), 200)
      const [strategy] = (await call(pennon, 'GET', `${P}/default/features/gated/environments/production/strategies`)).body
      expectEvents(events, [
        { type: 'feature-strategy-add', featureName: 'gated', ...gated, data: strategy },
        { type: 'feature-environment-enabled', featureName: 'gated', ...gated },
        { type: 'change-request-applied', ...gated, data: { changeRequestId: crId, state: 'Applied' } },
      ])
    })
    const offChange = { feature: 'gated', action: 'updateEnabled', payload: { enabled: false } }
    const discarded = (await call(pennon, 'POST', addUrl, offChange)).body.id
    await run('DELETE', `${cr}/{id}`, `${crs}/${discarded}`, undefined, 200, [
      { type: 'change-request-discarded', ...gated, data: { changeRequestId: discarded, state: 'Draft' } },
    ])
    const third = (await call(pennon, 'POST', addUrl, offChange)).body.id
    await call(pennon, 'PUT', `${crs}/${third}/state`, { state: 'In review' })
    await step('PUT change request state: Rejected by a reviewer', () =>
      asReviewer(third, 'Rejected', [{ type: 'change-request-rejected', ...gated, data: { changeRequestId: third, state: 'Rejected' } }]),
    )
    const fourth = (await call(pennon, 'POST', addUrl, offChange)).body.id
    await step('PUT change request state: Cancelled by its author', async () => {
      const events = await eventsOf(pennon, () => call(pennon, 'PUT', `${crs}/${fourth}/state`, { state: 'Cancelled' }), 200)
      expectEvents(events, [{ type: 'change-request-cancelled', ...gated, data: { changeRequestId: fourth, state: 'Cancelled' } }])
    })
    // Scheduled: applied by the scheduler when due (its events by who scheduled it), or marked failed on a conflict.
    const approvedRequest = async (change: unknown) => {
      const id = (await call(pennon, 'POST', addUrl, change)).body.id
      await call(pennon, 'PUT', `${crs}/${id}/state`, { state: 'In review' })
      await call(pennon, 'PUT', `${crs}/${id}/state`, { state: 'Approved' }, { token: reviewerToken })
      return id
    }
    const newEvents = async (before: number, type: string) => {
      await eventually(async () => (await allEvents(pennon)).slice(before).some((e) => e.type === type), type)
      return [...checkOneRequest((await allEvents(pennon)).slice(before))]
    }
    const fifth = await approvedRequest(offChange)
    const soon = new Date(Date.now() + 300).toISOString()
    await run('PUT', `${cr}/{id}/state`, `${crs}/${fifth}/state`, { state: 'Scheduled', scheduledAt: soon }, 200, [
      { type: 'change-request-scheduled', ...gated, data: { changeRequestId: fifth, state: 'Scheduled', scheduledAt: soon } },
    ])
    await step('the scheduler: a due request applied, with the changes’ own events', async () => {
      const events = await newEvents((await allEvents(pennon)).length, 'change-request-scheduled-application-success')
      const times = { scheduledAt: soon, appliedAt: events[1].data.appliedAt }
      expectEvents(events, [
        { type: 'feature-environment-disabled', featureName: 'gated', ...gated },
        { type: 'change-request-applied', ...gated, data: { changeRequestId: fifth, state: 'Applied', ...times } },
        { type: 'change-request-scheduled-application-success', ...gated, data: { changeRequestId: fifth, state: 'Applied', ...times } },
      ])
    })
    const [gatedStrategy] = (await call(pennon, 'GET', `${P}/default/features/gated/environments/production/strategies`)).body
    const sixth = await approvedRequest({ feature: 'gated', action: 'deleteStrategy', payload: { id: gatedStrategy.id } })
    const later = new Date(Date.now() + 300).toISOString()
    await call(pennon, 'PUT', `${crs}/${sixth}/state`, { state: 'Scheduled', scheduledAt: later })
    await call(pennon, 'DELETE', `${P}/default/features/gated/environments/production/strategies/${gatedStrategy.id}`)
    await step('the scheduler: a conflict marks the schedule failed, with its reason', async () => {
      const events = await newEvents((await allEvents(pennon)).length, 'change-request-scheduled-application-failure')
      const { failedAt, reason } = events[0].data
      assert.match(reason, /cannot be applied/)
      expectEvents(events, [
        {
          type: 'change-request-scheduled-application-failure',
          ...gated,
          data: { changeRequestId: sixth, state: 'Scheduled', scheduledAt: later, failedAt, reason },
        },
      ])
    })
    await call(pennon, 'PUT', `${crs}/${sixth}/state`, { state: 'Cancelled' })
    // A schedule whose person may no longer apply requests: suspended in the role change's transaction.
    const seventh = await approvedRequest(offChange)
    const scheduler = await call(pennon, 'POST', users, { email: 'scheduler@example.com', rootRole: 2, password: PASSWORD })
    const schedulerLogin = await call(
      pennon,
      'POST',
      '/auth/simple/login',
      { username: 'scheduler@example.com', password: PASSWORD },
      { token: null },
    )
    const farOff = new Date(Date.now() + 3_600_000).toISOString()
    const byScheduler = asBrowser(String(schedulerLogin.headers['set-cookie']).split(';')[0]!)
    const scheduledBy = await call(pennon, 'PUT', `${crs}/${seventh}/state`, { state: 'Scheduled', scheduledAt: farOff }, byScheduler)
    assert.equal(scheduledBy.status, 200, scheduledBy.text)
    const schedulerData = { id: scheduler.body.id, name: null, username: null, email: 'scheduler@example.com', rootRole: 2 }
    await run('PUT', `${users}/{id}`, `${users}/${scheduler.body.id}`, { rootRole: 3 }, 200, [
      { type: 'user-updated', data: { ...schedulerData, rootRole: 3 }, preData: schedulerData },
      {
        type: 'change-request-schedule-suspended',
        ...gated,
        data: {
          changeRequestId: seventh,
          state: 'Scheduled',
          scheduledAt: farOff,
          reason: `The user who scheduled this change request (user id: ${scheduler.body.id}) no longer has the APPLY_CHANGE_REQUEST permission.`,
        },
      },
    ])
    await call(pennon, 'PUT', `${crs}/${seventh}/state`, { state: 'Cancelled' })
    // Where no approval is needed, a request sent to review is Approved at once.
    await call(pennon, 'PUT', `${addUrl}/config`, { changeRequestsEnabled: true, requiredApprovals: 0 })
    const eighth = (await call(pennon, 'POST', addUrl, offChange)).body.id
    await step('PUT change request state: In review where no approval is needed, Approved at once', async () => {
      const events = await eventsOf(pennon, () => call(pennon, 'PUT', `${crs}/${eighth}/state`, { state: 'In review' }), 200)
      expectEvents(events, [
        { type: 'change-request-sent-to-review', ...gated, data: { changeRequestId: eighth, state: 'In review' } },
        { type: 'change-request-approved', ...gated, data: { changeRequestId: eighth, state: 'Approved' } },
      ])
    })
    await call(pennon, 'PUT', `${crs}/${eighth}/state`, { state: 'Cancelled' })
    await call(pennon, 'PUT', `${addUrl}/config`, { changeRequestsEnabled: false })

    await run('POST', '/auth/reset/password-email', '/auth/reset/password-email', { email: 'audit@example.com' }, 200, [])

    // Invite links: events by the admin, the sign-up's by the system; the secret (and the link that carries it) in none.
    const invites = '/api/admin/invite-link/tokens'
    const expiresAt = new Date(Date.now() + 7 * 86_400_000).toISOString()
    const invite = await run('POST', invites, invites, { name: 'Audit invite', expiresAt }, 201, (r) => [
      {
        type: 'public-signup-token-created',
        data: { name: 'Audit invite', enabled: true, expiresAt, createdAt: r.body.createdAt, role: 'Viewer' },
      },
    ])
    const inviteData = { name: 'Audit invite', enabled: true, expiresAt, createdAt: invite.body.createdAt, role: 'Viewer' }
    await run('PUT', `${invites}/{token}`, `${invites}/${invite.body.secret}`, { enabled: false }, 200, [
      { type: 'public-signup-token-updated', data: { ...inviteData, enabled: false }, preData: inviteData },
    ])
    await run('PUT', `${invites}/{token}`, `${invites}/${invite.body.secret}`, { enabled: true }, 200, [
      { type: 'public-signup-token-updated', data: inviteData, preData: { ...inviteData, enabled: false } },
    ])
    covered.add('POST /invite/{token}/signup')
    await step('POST /invite/{token}/signup', async () => {
      const before = (await allEvents(pennon)).length
      const body = { email: 'invited@example.com', name: 'Invited', password: PASSWORD }
      const signup = await call(pennon, 'POST', `/invite/${invite.body.secret}/signup`, body, { token: null })
      assert.equal(signup.status, 201, signup.text)
      const events = checkOneRequest((await allEvents(pennon)).slice(before), 'system', -1337)
      expectEvents(
        [...events],
        [
          {
            type: 'user-created',
            data: { id: signup.body.id, name: 'Invited', username: null, email: 'invited@example.com', rootRole: 3 },
          },
          { type: 'public-signup-token-user-added', data: { name: 'Audit invite', userId: signup.body.id } },
        ],
      )
    })

    // Failed writes leave no event.
    // Integrations: their events carry everything but the parameters (secrets among them).
    const addons = '/api/admin/addons'
    const hook = {
      provider: 'webhook',
      enabled: true,
      parameters: { url: 'https://93.184.216.34/hook', authorization: 'Bearer hook-secret' },
      events: ['feature-created'],
    }
    const withoutParameters = ({ parameters: _secrets, ...rest }: Record<string, unknown>) => rest
    const addon = await run('POST', addons, addons, hook, 201, (r) => [{ type: 'addon-config-created', data: withoutParameters(r.body) }])
    const changedAddon = await run('PUT', `${addons}/{id}`, `${addons}/${addon.body.id}`, { ...hook, enabled: false }, 200, (r) => [
      { type: 'addon-config-updated', data: withoutParameters(r.body), preData: withoutParameters(addon.body) },
    ])
    // Sending again records a try in the delivery log, no event (here: no such integration).
    await run('POST', `${addons}/{id}/events/{eventId}/redeliver`, `${addons}/999/events/1/redeliver`, undefined, 404, [])
    await run('DELETE', `${addons}/{id}`, `${addons}/${addon.body.id}`, undefined, 200, [
      { type: 'addon-config-deleted', preData: withoutParameters(changedAddon.body) },
    ])
    for (const [method, url, body, status] of [
      ['POST', `${P}/default/features`, { name: 'bad name' }, 400],
      ['POST', `${P}/ghost/features`, { name: 'ghostly' }, 404],
      ['POST', `${P}/default/features/nope/dependencies`, { feature: 'nada' }, 404],
      ['POST', '/api/admin/segments', { name: 'x', constraints: [{ contextName: 'c', operator: 'NUM_EQ', value: 'abc' }] }, 400],
      ['DELETE', '/api/admin/segments/999', undefined, 404],
      ['DELETE', `${P}/default`, undefined, 409],
      ['POST', '/api/admin/service-account', { username: 'u', name: 'n', rootRole: 9 }, 400],
      ['POST', `${P}/ghost/api-tokens`, { tokenName: 't', type: 'client' }, 404],
      ['POST', `${P}/default/api-tokens`, { tokenName: 't', type: 'admin' }, 400],
      ['DELETE', `${P}/default/api-tokens/default:development.0`, undefined, 404],
      ['POST', '/api/admin/user-admin', { email: 'weak@example.com', rootRole: 3, password: 'weak' }, 400],
      ['PUT', '/api/admin/user-admin/999999', { name: 'ghost' }, 404],
      ['POST', '/api/admin/environments', { name: 'development', type: 'development' }, 409],
      ['POST', `${P}/default/features/ghost/environments/production/on`, undefined, 404],
      ['POST', `${P}/default/bulk_features/environments/nowhere/on`, { features: [] }, 404],
      ['POST', '/api/admin/strategies', { name: 'default', parameters: [] }, 409],
      ['PUT', '/api/admin/strategies/default', { parameters: [] }, 409],
      ['DELETE', '/api/admin/strategies/ghost', undefined, 404],
      ['POST', '/api/admin/context', { name: 'userId' }, 409],
      ['PUT', '/api/admin/context/ghost', {}, 404],
      ['POST', '/api/admin/context/userId/legal-values', { value: '' }, 400],
      ['DELETE', `${P}/default/context/userId`, undefined, 404],
      ['POST', '/api/admin/features/ghost/tags', { type: 'simple', value: 'web' }, 404],
      ['POST', `${P}/default/features/ghost/link`, { url: 'https://example.com' }, 404],
      ['POST', `${P}/default/features/tagged/link`, { url: 'ftp://example.com' }, 400],
      ['PUT', `${P}/default/features/tagged/link/nope`, { url: 'https://example.com' }, 404],
      ['DELETE', `${P}/default/features/tagged/link/nope`, undefined, 404],
      ['POST', '/api/admin/tags', { type: 'ghost', value: 'web' }, 400],
      ['DELETE', '/api/admin/tag-types/ghost', undefined, 404],
      ['POST', '/api/admin/addons', { provider: 'webhook', enabled: true, parameters: { url: 'http://10.0.0.1/' }, events: [] }, 400],
      ['DELETE', '/api/admin/addons/999', undefined, 404],
      ['POST', '/api/admin/events/999999/revert', undefined, 404],
      [
        'POST',
        '/api/admin/features-batch/import',
        {
          project: 'default',
          environment: 'development',
          data: { features: [{ name: 'x' }], featureStrategies: [{ name: 'nope', featureName: 'x' }] },
        },
        400,
      ],
    ] as const) {
      // Each on its own: one failing leaves the next ones' state as it was.
      await t.test(`failed: ${method} ${url} → ${status}`, async () => {
        assert.deepEqual(await eventsOf(pennon, () => call(pennon, method, url, body), status), [], `${method} ${url}`)
      })
    }

    await t.test('every write route of the API is covered above', async () => {
      const document = (await call(pennon, 'GET', '/docs/openapi.json', undefined, { token: null })).body
      const writes = Object.entries(document.paths as Record<string, Record<string, unknown>>).flatMap(([path, methods]) =>
        Object.keys(methods)
          .filter((m) => ['post', 'put', 'delete', 'patch'].includes(m))
          .map((m) => `${m.toUpperCase()} ${path}`),
      )
      assert.deepEqual(
        writes.filter((w) => !covered.has(w)),
        [],
        'write endpoints without an audit check',
      )
    })

    await t.test('no secret or hash is in the event log', async () => {
      const everything = JSON.stringify(await allEvents(pennon))
      const hashes = (await pennon.database.db.selectFrom('api_tokens').select('secret_hash').execute()).map((r) => r.secret_hash)
      for (const needle of [
        OIDC_SECRET,
        secret,
        projectSecret,
        accountToken.body.secret,
        pennon.adminToken,
        pat.body.secret,
        invite.body.secret,
        'hook-secret',
        ...hashes,
      ])
        assert.ok(!everything.includes(needle), 'a secret or hash is in the event log')
    })
  })
})
