/**
 * Generative fuzzing of every documented route: random and malformed bodies, wrong
 * types at every depth, huge strings, deep nesting, NUL and lone surrogates,
 * prototype keys, random headers and content types, bad tokens, hostile path
 * parameters. Every answer must be below 500 and, for errors, in the one error shape;
 * afterwards the server still answers and the data invariants hold. A second pass keeps the
 * failed-authentication throttle at its default: a valid credential is never refused.
 *   FUZZ_SEED=123 FUZZ_REQUESTS=20000 node --test test/fuzz.api.test.ts
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { call, onEachDatabase, serviceAccountToken, apiToken, useTestApp, type TestApp } from './test-app.ts'
import { dependencyViolations, eventViolations, flagStateViolations } from './invariants.ts'

const SEED = Number(process.env.FUZZ_SEED ?? (process.env.CI ? 20261121 : Math.floor(Math.random() * 2 ** 31)))
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? (process.env.CI ? 10_000 : 3000))

/** mulberry32: small, fast, seedable. */
function random(seed: number) {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (n: number) => Math.floor(next() * n)
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!
  return { next, int, pick, chance: (p: number) => next() < p }
}
type Random = ReturnType<typeof random>

// Grown by prepare() with the id of a strategy, so that strategy routes reach a real one.
const NAMES = ['default', 'p1', 'c1', 'c2', 'lone', 'ghost', 'fz-project', 'seg', 'a', 'A', 'development', 'production', 'staging']
const STRINGS = [
  '',
  ' ',
  'x',
  'flag-1',
  'p1',
  'c1',
  'default',
  '..',
  '.',
  '%',
  '%zz',
  '%00',
  'a/b',
  '\u0000',
  '\ud800',
  '😀',
  'ü',
  '\u202e',
  '__proto__',
  'constructor',
  'prototype',
  '1',
  '-1',
  '0',
  '2147483648',
  '1e3',
  'NaN',
  'null',
  'true',
  '<script>',
  "' or 1=1 --",
]

function fuzzString(r: Random): string {
  switch (r.int(6)) {
    case 0:
      return 'x'.repeat(r.pick([101, 256, 1000, 10_000, 100_000]))
    case 1:
      return String.fromCharCode(...Array.from({ length: r.int(20) }, () => r.int(0x10000)))
    case 2:
      return r.pick(NAMES)
    default:
      return r.pick(STRINGS)
  }
}

function fuzzValue(r: Random, depth = 0): unknown {
  switch (r.int(depth > 4 ? 6 : 9)) {
    case 0:
      return null
    case 1:
      return r.chance(0.5)
    case 2:
      return r.pick([0, -1, 1.5, 1e308, -0, 2 ** 31, 2 ** 53 + 1, 3])
    case 3:
    case 4:
    case 5:
      return fuzzString(r)
    case 6:
      return Array.from({ length: r.int(5) }, () => fuzzValue(r, depth + 1))
    default: {
      const object: Record<string, unknown> = {}
      for (let i = r.int(5); i > 0; i--)
        object[r.pick([...STRINGS, 'name', 'features', 'constraints', 'feature', 'values', 'value', 'operator'])] = fuzzValue(r, depth + 1)
      return object
    }
  }
}

/** A plausible body for the route, then mutated: a field removed, retyped, or replaced deep inside. */
const constraint = (r: Random) => ({
  contextName: r.pick(['userId', 'appVersion', '']),
  operator: r.pick(['IN', 'NOT_IN', 'STR_CONTAINS', 'NUM_EQ', 'DATE_AFTER', 'SEMVER_GT', 'REGEX', 'BOGUS']),
  values: [fuzzString(r)],
  value: fuzzString(r),
  inverted: r.chance(0.3),
})
const variant = (r: Random) => ({
  name: r.pick(['a', 'b', fuzzString(r)]),
  weight: r.pick([0, 500, 1000, 1001, -1, 1.5]),
  weightType: r.pick(['variable', 'fix', 'x']),
  stickiness: r.pick(['default', 'userId', '']),
  ...(r.chance(0.5)
    ? { payload: { type: r.pick(['string', 'json', 'csv', 'number', 'x']), value: r.pick(['{"a":1}', '{', '12', 'x']) } }
    : {}),
})
const patchOperations = (r: Random) =>
  Array.from({ length: r.int(4) }, () => ({
    op: r.pick(['add', 'remove', 'replace', 'move', 'copy', 'test', 'x']),
    path: r.pick(['/title', '/parameters/rollout', '/constraints/-', '/variants/0', '/0', '/-', '/__proto__', '', 'x', '/segments/0']),
    ...(r.chance(0.5) ? { from: r.pick(['/title', '/0', '/constraints/0']) } : {}),
    ...(r.chance(0.8) ? { value: r.pick([fuzzValue(r), constraint(r), variant(r), '50', 101]) } : {}),
  }))

/** A plausible body for the route (`path` is the OpenAPI template), before fuzzBody mutates it. */
function plausibleBody(r: Random, path: string, method: string): unknown {
  if (method === 'PATCH') return patchOperations(r)
  if (path.endsWith('/variants'))
    return Array.from({ length: r.int(4) }, () => ({ ...variant(r), overrides: [{ contextName: 'userId', values: [fuzzString(r)] }] }))
  if (path.endsWith('/set-sort-order')) return [{ id: r.pick(NAMES), sortOrder: r.pick([0, 1, -1, 1.5, 2 ** 31]) }]
  if (path.includes('/strategies') && !path.startsWith('/api/admin/strategies')) {
    return {
      name: r.pick(['flexibleRollout', 'default', 'userWithId', 'nope']),
      parameters: { rollout: r.pick(['50', 50, 101, 'abc', 1.5]), stickiness: r.pick(['default', '']), groupId: fuzzString(r) },
      constraints: Array.from({ length: r.int(3) }, () => constraint(r)),
      segments: r.pick([[], [1], [999], [0], [-1]]),
      variants: Array.from({ length: r.int(3) }, () => variant(r)),
      title: r.pick([null, 'x', 5]),
      disabled: r.pick([true, false, null]),
    }
  }
  if (path.endsWith('/bulk_features/environments/{environment}/on') || path.endsWith('/bulk_features/environments/{environment}/off')) {
    return { features: Array.from({ length: r.int(4) }, () => r.pick(NAMES)) }
  }
  if (path.endsWith('/environments') && path.includes('/projects/')) return { environment: r.pick(NAMES) }
  if (path === '/api/admin/environments')
    return { name: r.pick(NAMES), type: r.pick(['test', 'a b', '']), sortOrder: r.pick([1, -1, 1.5]), enabled: r.chance(0.5) }
  if (path.endsWith('/features'))
    return { name: r.pick(NAMES), description: fuzzString(r), type: r.pick(['release', 'experiment', 'nope']) }
  if (path.endsWith('/dependencies')) return { feature: r.pick(NAMES), enabled: r.chance(0.5), variants: [fuzzString(r)] }
  if (/\/(archive|revive|delete|validate)$/.test(path)) return { features: Array.from({ length: r.int(6) }, () => r.pick(NAMES)) }
  if (path.includes('/segments')) {
    const operator = r.pick(['IN', 'NOT_IN', 'STR_CONTAINS', 'NUM_EQ', 'DATE_AFTER', 'SEMVER_GT', 'REGEX', 'BOGUS'])
    return {
      name: fuzzString(r),
      project: r.pick([null, '', 'default', 'ghost']),
      constraints: [{ contextName: 'userId', operator, values: [fuzzString(r)], value: fuzzString(r), inverted: r.chance(0.3) }],
    }
  }
  if (path.endsWith('/projects')) return { id: r.pick(NAMES), name: fuzzString(r) }
  if (path.endsWith('/api-tokens')) return { tokenName: fuzzString(r), type: r.pick(['client', 'admin', 'frontend', 'x']) }
  if (path.endsWith('/token')) return { description: fuzzString(r), expiresAt: r.pick([null, '2999-01-01T00:00:00Z', 'soon']) }
  if (path.endsWith('/service-account')) return { username: fuzzString(r), name: 'n', rootRole: r.pick([1, 2, 3, 4, '1']) }
  return {}
}

function fuzzBody(r: Random, path: string, method: string): string | undefined {
  switch (r.int(10)) {
    case 0:
      return undefined
    case 1:
      return r.pick(['{', '[1,', 'nul', '"x', '{"a":}', '\u0000', '{}{}', '1', '"str"', 'null', '[]', '\ud800'])
    case 2: {
      const depth = r.pick([100, 1000])
      return `${'['.repeat(depth)}${']'.repeat(depth)}`
    }
    case 3:
      return JSON.stringify(fuzzValue(r))
    case 4:
      return `{"__proto__":{"admin":true},"constructor":{"prototype":{"x":1}},"features":["a"],"name":"proto"}`
    default: {
      const body = plausibleBody(r, path, method) as Record<string, unknown>
      const keys = Object.keys(body)
      if (keys.length > 0 && r.chance(0.6)) {
        const key = r.pick(keys)
        if (r.chance(0.3)) delete body[key]
        else body[key] = fuzzValue(r)
      }
      let text = JSON.stringify(body)
      // Escapes JSON.stringify would never produce on its own.
      if (r.chance(0.1)) text = text.replace(/"([^"]*)"/, '"$1\\u0000"')
      if (r.chance(0.1)) text = text.replace(/"([^"]*)"/, '"$1\\udc00"')
      return text
    }
  }
}

function fillPath(r: Random, template: string): string {
  return template.replace(/\{[^}]+\}/g, () =>
    r.pick([
      () => encodeURIComponent(r.pick(NAMES)),
      () => r.pick(['1', '2', '0', '-1', 'abc', '1.5', '99999999999', '2147483648']),
      () => r.pick(['%', '%zz', '%00', '..', '%2e%2e', '%2F', 'a%20b', '%E2%82', '%F0%9F%98%80']),
      () => 'x'.repeat(r.pick([100, 1000, 10_000])),
    ])(),
  )
}

interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH'
  path: string
}

/** Credentials that work (`valid`) and ones that do not: missing, empty, unknown, too long, almost right. */
interface Credentials {
  valid: string[]
  invalid: Array<string | null>
}

/** Some ground to stand on (a parent with two children and a free flag), and the routes of the OpenAPI document. */
async function prepare(pennon: TestApp): Promise<Route[]> {
  for (const name of ['p1', 'c1', 'c2', 'lone']) await call(pennon, 'POST', '/api/admin/projects/default/features', { name })
  for (const child of ['c1', 'c2'])
    await call(pennon, 'POST', `/api/admin/projects/default/features/${child}/dependencies`, { feature: 'p1' })
  // A segment and a strategy using it, switched on: segment deletes, strategy edits and switches meet real data.
  const segment = await call(pennon, 'POST', '/api/admin/segments', { name: 'fuzz-segment', constraints: [] })
  const strategy = await call(pennon, 'POST', '/api/admin/projects/default/features/p1/environments/development/strategies', {
    name: 'default',
    segments: [segment.body.id],
  })
  assert.equal((await call(pennon, 'POST', '/api/admin/projects/default/features/p1/environments/development/on')).status, 200)
  if (!NAMES.includes(strategy.body.id)) NAMES.push(strategy.body.id)
  const document = (await call(pennon, 'GET', '/docs/openapi.json', undefined, { token: null })).body
  const routes: Route[] = Object.entries(document.paths as Record<string, Record<string, unknown>>)
    // A stream that opens never ends, and an injected request waits for the end: its refusals and
    // its limit are tested in src/features/client-api/streaming.api.test.ts.
    .filter(([path]) => path !== '/api/client/streaming')
    .flatMap(([path, methods]) =>
      Object.keys(methods)
        .filter((m) => m !== 'head')
        .map((method) => ({ method: method.toUpperCase() as Route['method'], path })),
    )
  assert.ok(routes.length >= 20, `routes found: ${routes.length}`)
  return routes
}

/**
 * Sends `requests` generated requests; each answer must be below 500 and, for errors, in the one
 * error shape; `check` sees every answer with the credential it was sent with. Returns the count per status.
 */
async function fuzz(
  pennon: TestApp,
  routes: Route[],
  credentials: Credentials,
  requests: number,
  check: (token: string | null, status: number, where: string) => void = () => {},
): Promise<Map<number, number>> {
  const r = random(SEED)
  const statuses = new Map<number, number>()
  for (let i = 0; i < requests; i++) {
    const route = r.chance(0.05)
      ? { method: r.pick(['GET', 'POST', 'PATCH'] as const), path: `/api/admin/${fillPath(r, '{x}')}` }
      : r.pick(routes)
    let url = fillPath(r, route.path)
    if (r.chance(0.2))
      url += r.pick(['?project=default', '?project=a&project=b', '?project=', '?project=%00', `?x=${'y'.repeat(5000)}`, '?project=%zz'])
    const token = r.chance(0.75) ? r.pick(credentials.valid) : r.pick(credentials.invalid)
    const headers: Record<string, string> = {}
    if (token !== null) headers.authorization = token
    const body = route.method === 'GET' && r.chance(0.9) ? undefined : fuzzBody(r, route.path, route.method)
    if (body !== undefined || r.chance(0.1)) {
      headers['content-type'] = r.chance(0.85)
        ? r.pick(['application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON'])
        : r.pick(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', '', 'application/jsonx', '*/*'])
    }
    if (r.chance(0.05))
      headers[r.pick(['x-forwarded-for', 'accept', 'accept-encoding', 'x-unknown'])] = fuzzString(r).replace(/[^\x20-\x7e]/g, '?')
    const response = await pennon.app.inject({ method: route.method, url, headers, ...(body === undefined ? {} : { payload: body }) })
    statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1)
    const where = `#${i} ${route.method} ${url.slice(0, 200)} body ${String(body).slice(0, 200)}`
    assert.ok(response.statusCode < 500, `${where} → ${response.statusCode} ${response.body.slice(0, 500)}`)
    if (response.statusCode >= 400 && url.startsWith('/ofrep/')) {
      // OpenFeature's protocol: no body on 401, 403 and 429; otherwise its own error shape.
      if ([401, 403, 429].includes(response.statusCode)) assert.equal(response.body, '', where)
      else {
        const error = JSON.parse(response.body)
        assert.ok(
          ['PARSE_ERROR', 'TARGETING_KEY_MISSING', 'INVALID_CONTEXT', 'GENERAL', 'FLAG_NOT_FOUND'].includes(error.errorCode),
          `${where} → ${response.statusCode} ${response.body.slice(0, 300)}`,
        )
        assert.equal(typeof error.errorDetails, 'string', where)
        assert.equal(response.headers['content-type'], 'application/json; charset=utf-8', where)
      }
    } else if (response.statusCode === 400 && url.startsWith('/auth/oidc/') && !response.body.startsWith('{')) {
      // A single sign-on that fails ends on a page for the person, not in the API's error shape.
      assert.equal(response.headers['content-type'], 'text/html; charset=utf-8', where)
      assert.match(response.body, /<h1>Sign-in failed<\/h1>/, where)
    } else if (response.statusCode >= 400) {
      const error = JSON.parse(response.body)
      assert.equal(typeof error.id, 'string', where)
      assert.equal(typeof error.name, 'string', where)
      assert.equal(typeof error.message, 'string', where)
      assert.ok(Array.isArray(error.details) && error.details.length > 0, where)
      assert.equal(response.headers['content-type'], 'application/json; charset=utf-8', where)
    }
    check(token, response.statusCode, where)
  }
  return statuses
}

const invalidCredentials = (pennon: TestApp): Array<string | null> => [
  null,
  '',
  'garbage',
  '*:*.0',
  'x'.repeat(5000),
  `${pennon.adminToken}\u0000`,
]

async function assertStillSound(pennon: TestApp): Promise<void> {
  assert.equal((await call(pennon, 'GET', '/health', undefined, { token: null })).status, 200)
  assert.deepEqual(await dependencyViolations(pennon.database.db), [])
  assert.deepEqual(await eventViolations(pennon.database.db), [])
  assert.deepEqual(await flagStateViolations(pennon.database.db), [])
}

// The pass with the failure throttle at its default: fewer requests, most of them from a throttled address.
const THROTTLED_REQUESTS = Math.min(REQUESTS, 2000)

onEachDatabase('fuzzing', (database) => {
  test(`${REQUESTS} generated requests, seed ${SEED}: never a 5xx, always the one error shape`, { timeout: 300_000 }, async (t) => {
    console.log(`fuzz seed ${SEED} (${database.name}); reproduce with FUZZ_SEED=${SEED}`)
    const pennon = await useTestApp(t, database, { env: { AUTH_FAILURES_PER_MINUTE: '0', LOG_LEVEL: 'silent' } })
    const viewer = await serviceAccountToken(pennon, 3)
    const editor = await serviceAccountToken(pennon, 2)
    const client = await apiToken(pennon, 'client')
    const routes = await prepare(pennon)
    const valid = [pennon.adminToken, pennon.adminToken, `Bearer ${pennon.adminToken}`, editor, viewer, client]
    const statuses = await fuzz(pennon, routes, { valid, invalid: invalidCredentials(pennon) }, REQUESTS)
    console.log(`fuzz statuses (${database.name}): ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`)
    await assertStillSound(pennon)
  })

  test(`${THROTTLED_REQUESTS} generated requests, seed ${SEED}, failure throttle at its default: a valid credential is never refused`, {
    timeout: 300_000,
  }, async (t) => {
    const pennon = await useTestApp(t, database, { env: { LOG_LEVEL: 'silent' } })
    assert.equal(pennon.config.authFailuresPerMinute, 60)
    // Accounts the generated requests may delete (ids 1 and 2), so that the ones whose tokens are used stay.
    for (const decoy of ['decoy-1', 'decoy-2'])
      await call(pennon, 'POST', '/api/admin/service-account', { username: decoy, name: decoy, rootRole: 3 })
    const viewer = await serviceAccountToken(pennon, 3)
    const editor = await serviceAccountToken(pennon, 2)
    const client = await apiToken(pennon, 'client')
    const routes = await prepare(pennon)
    const valid = [pennon.adminToken, pennon.adminToken, `Bearer ${pennon.adminToken}`, editor, viewer, client]
    let refusedFailures = 0
    const statuses = await fuzz(
      pennon,
      routes,
      { valid, invalid: invalidCredentials(pennon) },
      THROTTLED_REQUESTS,
      (token, status, where) => {
        if (token !== null && valid.includes(token)) assert.notEqual(status, 429, `${where}: a valid credential refused`)
        else if (status === 429) refusedFailures++
      },
    )
    console.log(`fuzz statuses, throttled (${database.name}): ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`)
    assert.ok(refusedFailures > 0, 'past the limit, failures get 429')
    await assertStillSound(pennon)
  })
})
