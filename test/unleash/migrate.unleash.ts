/**
 * `npm run migrate` from a REAL Unleash 8.2 (open-source `unleash-server` from npm, on the local
 * PostgreSQL) into a fresh Pennon, run as a user runs it (the CLI as a child process): the summary,
 * "Nothing changed" on a second run, and `--verify` in full agreement. Not part of `npm test` (its
 * name does not end in .test.ts): `npm run test:unleash` installs Unleash and runs it.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { test } from 'node:test'
import { promisify } from 'node:util'
import { createAdminClient } from '../../src/features/migration/admin-client.ts'
import { call, useTestApp } from '../test-app.ts'
import { startUnleash } from './unleash-server.ts'

const CLI = join(import.meta.dirname, '..', '..', 'src', 'cli', 'migrate.ts')

/** `tokens`: the admin tokens, in the environment as an operator gives them. */
async function cli(
  argv: string[],
  tokens: { MIGRATE_FROM_TOKEN: string; MIGRATE_TO_TOKEN: string },
): Promise<{ code: number; out: string; err: string; seconds: number }> {
  const started = performance.now()
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI, ...argv], {
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, ...tokens },
    })
    return { code: 0, out: stdout, err: stderr, seconds: (performance.now() - started) / 1000 }
  } catch (error: any) {
    return { code: error.code ?? -1, out: error.stdout ?? '', err: error.stderr ?? '', seconds: (performance.now() - started) / 1000 }
  }
}

const summaryRow = (out: string, kind: string) => {
  const line = out.split('\n').find((l) => l.startsWith(`${kind} `))
  assert.ok(line, `no summary row for ${kind} in\n${out}`)
  return line.slice(kind.length).trim().split(/\s+/).map(Number)
}

const regionField = {
  name: 'region',
  description: 'where the user is',
  stickiness: false,
  legalValues: [{ value: 'eu-west', description: 'Ireland' }, { value: 'us-east' }, { value: 'ap-south', description: 'Mumbai' }],
}

/**
 * A varied state, written through Unleash's admin API. The open-source edition has one project
 * and the environments development and production only: it has no route to create others, and it
 * hides any added in its database.
 */
async function loadState(unleash: Awaited<ReturnType<typeof startUnleash>>): Promise<void> {
  const api = createAdminClient(unleash.url, unleash.token)
  const flag = (project: string, name: string) => `/api/admin/projects/${project}/features/${name}`
  const strategy = (project: string, name: string, environment: string, body: unknown) =>
    api.send('POST', `${flag(project, name)}/environments/${environment}/strategies`, body)
  const on = (project: string, name: string, environment: string) =>
    api.send('POST', `${flag(project, name)}/environments/${environment}/on`)

  await api.send('POST', '/api/admin/context', regionField)
  await api.send('POST', '/api/admin/context', { name: 'tenantId', description: 'the customer', stickiness: true })
  await api.send('POST', '/api/admin/context', { name: 'appVersion', description: '' })
  await api.send('POST', '/api/admin/tag-types', { name: 'team', description: 'who owns it' })
  await api.send('POST', '/api/admin/strategies', {
    name: 'tenantAllowList',
    description: 'tenants let in',
    parameters: [
      { name: 'tenants', type: 'list', description: 'tenant ids', required: true },
      { name: 'note', type: 'string', description: '', required: false },
    ],
  })
  const beta = await api.send('POST', '/api/admin/segments', {
    name: 'beta-users',
    description: 'beta testers',
    constraints: [{ contextName: 'userId', operator: 'IN', values: ['user-1', 'user-2', 'user-3'] }],
  })
  const modern = await api.send('POST', '/api/admin/segments', {
    name: 'modern-eu',
    constraints: [
      { contextName: 'appVersion', operator: 'SEMVER_GTE', value: '2.0.0' },
      { contextName: 'region', operator: 'IN', values: ['eu-west'], inverted: false, caseInsensitive: false },
    ],
  })

  await api.send('POST', '/api/admin/projects/default/features', {
    name: 'release.checkout',
    type: 'release',
    description: 'new checkout',
    impressionData: true,
  })
  await strategy('default', 'release.checkout', 'development', {
    name: 'flexibleRollout',
    title: 'EU first',
    parameters: { rollout: '50', stickiness: 'userId', groupId: 'checkout' },
    constraints: [{ contextName: 'region', operator: 'IN', values: ['eu-west', 'us-east'] }],
    segments: [beta.id],
  })
  await strategy('default', 'release.checkout', 'development', {
    name: 'applicationHostname',
    parameters: { hostNames: 'build-1,build-2' },
  })
  await strategy('default', 'release.checkout', 'production', {
    name: 'flexibleRollout',
    parameters: { rollout: '100', stickiness: 'default', groupId: 'checkout' },
    constraints: [{ contextName: 'appVersion', operator: 'SEMVER_GT', value: '1.4.0' }],
    variants: [
      { name: 'blue', weight: 500, weightType: 'variable', stickiness: 'default', payload: { type: 'string', value: 'blue' } },
      { name: 'green', weight: 500, weightType: 'variable', stickiness: 'default', payload: { type: 'json', value: '{"shade":2}' } },
    ],
  })
  for (const environment of ['development', 'production']) await on('default', 'release.checkout', environment)
  await api.send('POST', '/api/admin/features/release.checkout/tags', { type: 'simple', value: 'web' })
  await api.send('POST', '/api/admin/features/release.checkout/tags', { type: 'team', value: 'payments' })

  await api.send('POST', '/api/admin/projects/default/features', { name: 'experiment.search', type: 'experiment', description: 'ranking' })
  await strategy('default', 'experiment.search', 'development', {
    name: 'flexibleRollout',
    parameters: { rollout: '80', stickiness: 'tenantId', groupId: 'search' },
    segments: [modern.id],
  })
  await strategy('default', 'experiment.search', 'development', { name: 'remoteAddress', disabled: true, parameters: { IPs: '10.0.0.1' } })
  await strategy('default', 'experiment.search', 'production', {
    name: 'flexibleRollout',
    parameters: { rollout: '25', stickiness: 'random', groupId: 'search' },
  })
  for (const environment of ['development', 'production']) await on('default', 'experiment.search', environment)
  await api.send('PUT', `${flag('default', 'experiment.search')}/environments/development/variants`, [
    {
      name: 'red',
      weight: 700,
      weightType: 'variable',
      stickiness: 'default',
      payload: { type: 'string', value: 'red' },
      overrides: [{ contextName: 'userId', values: ['user-2'] }],
    },
    { name: 'blue', weight: 300, weightType: 'fix', stickiness: 'default' },
  ])
  await api.send('POST', '/api/admin/features/experiment.search/tags', { type: 'team', value: 'search' })

  await api.send('POST', '/api/admin/projects/default/features', { name: 'operational.child', type: 'operational' })
  await strategy('default', 'operational.child', 'development', { name: 'default', parameters: {} })
  await on('default', 'operational.child', 'development')
  await api.send('POST', `${flag('default', 'operational.child')}/dependencies`, { feature: 'release.checkout', enabled: true })

  await api.send('POST', '/api/admin/projects/default/features', { name: 'kill-switch.tenants', type: 'kill-switch' })
  await strategy('default', 'kill-switch.tenants', 'production', {
    name: 'tenantAllowList',
    parameters: { tenants: 'acme,globex', note: 'big ones' },
    constraints: [{ contextName: 'currentTime', operator: 'DATE_AFTER', value: '2024-01-01T00:00:00.000Z' }],
  })
  await on('default', 'kill-switch.tenants', 'production')

  await api.send('POST', '/api/admin/projects/default/features', { name: 'old.banner', type: 'release', description: 'gone' })
  await api.send('POST', '/api/admin/features/old.banner/tags', { type: 'simple', value: 'legacy' })
  await api.send('DELETE', flag('default', 'old.banner'))

  await api.send('POST', '/api/admin/projects/default/features', {
    name: 'permission.office',
    type: 'permission',
    description: 'office network only',
  })
  await strategy('default', 'permission.office', 'development', { name: 'remoteAddress', parameters: { IPs: '127.0.0.1,10.1.0.0/16' } })
  await strategy('default', 'permission.office', 'development', {
    name: 'flexibleRollout',
    parameters: { rollout: '40', stickiness: 'sessionId', groupId: 'office' },
    constraints: [{ contextName: 'tenantId', operator: 'STR_STARTS_WITH', values: ['ACME'], caseInsensitive: true, inverted: true }],
  })
  await on('default', 'permission.office', 'development')
}

test('npm run migrate from a real Unleash 8.2 into a fresh Pennon: summary, nothing changed the second time, verify agrees', {
  timeout: 600_000,
}, async (t) => {
  const times: Record<string, number> = {}
  let started = performance.now()
  const unleash = await startUnleash()
  t.after(() => unleash.stop())
  times['Unleash start (fresh database, its migrations)'] = (performance.now() - started) / 1000
  started = performance.now()
  await loadState(unleash)
  times['state written through its admin API'] = (performance.now() - started) / 1000

  const pennon = await useTestApp(t, { name: 'sqlite' })
  await pennon.app.listen({ port: 0, host: '127.0.0.1' })
  const address = pennon.app.server.address()
  const to = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
  const args = ['--from', unleash.url, '--to', to]
  const tokens = { MIGRATE_FROM_TOKEN: unleash.token, MIGRATE_TO_TOKEN: pennon.adminToken }

  const first = await cli(args, tokens)
  times['first migration'] = first.seconds
  assert.equal(first.code, 0, first.out + first.err)
  assert.match(first.out, /Migrated\.\nAPI tokens: not migrated/)
  const rows = Object.fromEntries(
    [
      'environments',
      'projects',
      'project environments',
      'tag types',
      'context fields',
      'strategy definitions',
      'segments',
      'flags',
      'archived flags',
    ].map((kind) => [kind, summaryRow(first.out, kind)]),
  )
  assert.deepEqual(rows, {
    environments: [0, 0, 2],
    projects: [0, 0, 1],
    'project environments': [0, 0, 2],
    'tag types': [1, 0, 1], // team; simple is built in on both
    'context fields': [3, 0, 5], // region, tenantId, appVersion; the 5 built-ins are on both
    'strategy definitions': [1, 0, 0],
    segments: [2, 0, 0],
    flags: [5, 0, 0],
    'archived flags': [1, 0, 0],
  })
  const archived = await call(pennon, 'GET', '/api/admin/projects/default/features?archived=true&limit=10')
  assert.deepEqual(
    archived.body.features.map((f: any) => f.name),
    ['old.banner'],
  )
  assert.deepEqual((await call(pennon, 'GET', '/api/admin/features/old.banner/tags')).body.tags, [
    { type: 'simple', value: 'legacy', color: '#FFFFFF' },
  ])
  const region = await call(pennon, 'GET', '/api/admin/context/region')
  assert.deepEqual(region.body.legalValues, regionField.legalValues)
  // Both servers' exports agree on the flags' metadata, switches, environment variants, tags and parents.
  const source = createAdminClient(unleash.url, unleash.token)
  for (const environment of ['development', 'production']) {
    const request = { environment, project: 'default' }
    const [want, have] = [
      await source.send('POST', '/api/admin/features-batch/export', request),
      (await call(pennon, 'POST', '/api/admin/features-batch/export', request)).body,
    ]
    // Pennon writes `overrides: []` on a variant that has none; Unleash leaves the key out.
    for (const row of have.featureEnvironments)
      for (const variant of row.variants) if (variant.overrides?.length === 0) delete variant.overrides
    for (const key of ['features', 'featureEnvironments', 'featureTags', 'dependencies'])
      assert.deepEqual(have[key], want[key], `${environment} ${key}`)
  }

  const second = await cli(args, tokens)
  times['second migration'] = second.seconds
  assert.equal(second.code, 0, second.out + second.err)
  assert.match(second.out, /Nothing changed: the target already had everything\./)
  assert.deepEqual(summaryRow(second.out, 'flags'), [0, 0, 5])

  const verified = await cli([...args, '--verify', '--generated', '30'], tokens)
  times.verify = verified.seconds
  assert.equal(verified.code, 0, verified.out + verified.err)
  assert.match(verified.out, /Agreement: 100\.00% of 600 checks \(0 differences, [1-9]\d* known\)\./)
  // The flag with random stickiness differs between any two evaluations: listed apart, with its reason.
  assert.match(
    verified.out,
    /Known differences \(\d+\), not counted against the agreement:\n {2}\[production\] client SDK experiment\.search .*\(known: random stickiness: each evaluation draws anew\)/,
  )
  for (const [what, seconds] of Object.entries(times)) t.diagnostic(`${what}: ${seconds.toFixed(1)} s`)
})
