/**
 * What the export/import tests share: the Unleash 8.2 fixtures (exports and answers recorded from
 * a real server, /work/shared/fixtures/unleash-8.2, README there) and the calls.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { call, type ApiResponse, type TestApp } from '../test-app.ts'
import { MAX_IMPORT_FEATURES, MAX_IMPORT_ITEMS } from '../../src/features/export-import/export-import-schemas.ts'

export const FIXTURES = process.env.UNLEASH_FIXTURES ?? '/work/shared/fixtures/unleash-8.2'

export const fixture = (name: string): any => JSON.parse(readFileSync(join(FIXTURES, name), 'utf8'))

export const BATCH = '/api/admin/features-batch'

export const exportFlags = (pennon: TestApp, query: unknown): Promise<ApiResponse> => call(pennon, 'POST', `${BATCH}/export`, query)
export const validateImport = (pennon: TestApp, body: unknown, token?: string): Promise<ApiResponse> =>
  call(pennon, 'POST', `${BATCH}/validate`, body, token === undefined ? {} : { token })
export const importFlags = (pennon: TestApp, body: unknown, token?: string): Promise<ApiResponse> =>
  call(pennon, 'POST', `${BATCH}/import`, body, token === undefined ? {} : { token })

/**
 * What an import needs first on a fresh Pennon, as on a fresh Unleash: the segments and the custom
 * strategy definitions of the source (its admin answers, admin-state.json), made by the admin API.
 */
export async function prepareTarget(pennon: TestApp): Promise<void> {
  const state = fixture('admin-state.json')
  // In the source's id order, so that the target numbers them alike (segments inlined in a strategy come in id order).
  const segments = [...state['GET /api/admin/segments'].segments].sort((a: { id: number }, b: { id: number }) => a.id - b.id)
  for (const { name, description, constraints } of segments) {
    const created = await call(pennon, 'POST', '/api/admin/segments', { name, description, constraints })
    assert.equal(created.status, 201, created.text)
  }
  for (const definition of state['GET /api/admin/strategies'].strategies.filter((s: { editable: boolean }) => s.editable)) {
    const { name, title, description, parameters } = definition
    const created = await call(pennon, 'POST', '/api/admin/strategies', { name, title, description, parameters })
    assert.equal(created.status, 201, created.text)
  }
}

/** GET /api/client/features for one environment (a client token of it), with or without the client-spec header. */
export async function clientFeatures(pennon: TestApp, environment: string, spec?: string): Promise<any> {
  const scoped = await call(pennon, 'POST', '/api/admin/api-tokens', {
    tokenName: `sdk-${environment}-${Math.random().toString(36).slice(2, 8)}`,
    type: 'client',
    environment,
    projects: ['*'],
  })
  assert.equal(scoped.status, 201, scoped.text)
  const response = await call(pennon, 'GET', '/api/client/features', undefined, {
    token: scoped.body.secret,
    headers: spec ? { 'unleash-client-spec': spec } : {},
  })
  assert.equal(response.status, 200, response.text)
  return response.body
}

/**
 * A served flag compared across servers, with the normalisations docs/api.md lists: its strategies
 * as a set (an export does not carry their order), environment variants without an empty
 * `overrides` (Unleash omits it, Pennon sends []), and the reference's repeated dependency entries
 * (it lists a parent once per joined row) once.
 */
export function comparable(flag: any): any {
  const copy = structuredClone(flag)
  for (const variant of copy.variants ?? [])
    if (Array.isArray(variant.overrides) && variant.overrides.length === 0) delete variant.overrides
  if (Array.isArray(copy.dependencies))
    copy.dependencies = copy.dependencies.filter(
      (d: unknown, i: number, all: unknown[]) => all.findIndex((o) => JSON.stringify(o) === JSON.stringify(d)) === i,
    )
  copy.strategies = [...copy.strategies].sort((a: unknown, b: unknown) => (sorted(a) < sorted(b) ? -1 : 1))
  return copy
}

/** JSON with object keys sorted: the order of keys never decides. */
function sorted(value: unknown): string {
  return JSON.stringify(value, (_key, v) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v,
  )
}

/** The served flags by name. */
export const byName = (answer: { features: Array<{ name: string }> }): Map<string, any> =>
  new Map(answer.features.map((flag) => [flag.name, flag]))

/**
 * An import of `flags` new flags (by default MAX_IMPORT_FEATURES, the most an import takes) with
 * 10 strategies each (MAX_IMPORT_ITEMS for the most flags), every other one switched on. The
 * largest is about 0.9 MB of JSON with a prefix of 5 characters (12 KB more per character), within
 * the default BODY_LIMIT (1 MiB). `prefix` keeps the names of two such documents apart.
 */
export function largeImport(prefix: string, flags = MAX_IMPORT_FEATURES): { project: string; environment: string; data: any } {
  const features = []
  const featureEnvironments = []
  const featureStrategies = []
  for (let i = 0; i < flags; i++) {
    const name = `${prefix}-${String(i).padStart(4, '0')}`
    features.push({ name, type: 'release' })
    featureEnvironments.push({ name, enabled: i % 2 === 0 })
    for (let s = 0; s < MAX_IMPORT_ITEMS / MAX_IMPORT_FEATURES; s++) {
      featureStrategies.push({ name: 'flexibleRollout', featureName: name, parameters: { rollout: String(s * 10) } })
    }
  }
  return { project: 'default', environment: 'development', data: { features, featureStrategies, featureEnvironments } }
}
