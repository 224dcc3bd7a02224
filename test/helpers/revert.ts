/** Request helpers shared by the revert test files. */
import assert from 'node:assert/strict'
import { allEvents, call, type ApiResponse, type TestApp } from '../test-app.ts'
import { fromOneRequestIn } from './strategies.ts'

export const revertPath = (id: number, query = '') => `/api/admin/events/${id}/revert${query}`

export const revert = (pennon: TestApp, id: number, query = '', token?: string): Promise<ApiResponse> =>
  call(pennon, 'POST', revertPath(id, query), undefined, token === undefined ? {} : { token })

/** The newest event of this type (of this flag, when named). */
export async function lastEvent(pennon: TestApp, type: string, featureName?: string): Promise<any> {
  const found = (await allEvents(pennon))
    .reverse()
    .find((event) => event.type === type && (featureName === undefined || event.featureName === featureName))
  assert.ok(found, `no ${type} event`)
  return found
}

/** The event summary a revert answers. */
export const about = (event: any) => ({
  id: event.id,
  type: event.type,
  featureName: event.featureName,
  project: event.project,
  environment: event.environment,
})

/**
 * Reverts `event` twice: a dry run (its exact answer, nothing written), then for real (the same
 * changes, dryRun false). Returns the events the revert wrote, as fromOneRequestIn leaves them.
 */
export async function dryRunThenApply(pennon: TestApp, event: any, changes: unknown[], query = ''): Promise<any[]> {
  const before = (await allEvents(pennon)).length
  const dry = await revert(pennon, event.id, `?dryRun=true${query ? `&${query}` : ''}`)
  assert.equal(dry.status, 200, dry.text)
  assert.equal(dry.headers['content-type'], 'application/json; charset=utf-8')
  assert.deepEqual(dry.body, { event: about(event), dryRun: true, changes })
  assert.equal((await allEvents(pennon)).length, before, 'a dry run writes no event')
  const applied = await revert(pennon, event.id, query ? `?${query}` : '')
  assert.equal(applied.status, 200, applied.text)
  assert.deepEqual(applied.body, { event: about(event), dryRun: false, changes })
  const written = (await allEvents(pennon)).slice(before)
  return written.length === 0 ? [] : fromOneRequestIn(written)
}

/** One flag as GET /api/client/features/:name shows it to a client token. */
export async function clientFlag(pennon: TestApp, token: string, name: string): Promise<any> {
  const response = await call(pennon, 'GET', `/api/client/features/${name}`, undefined, { token })
  assert.equal(response.status, 200, response.text)
  return response.body
}
