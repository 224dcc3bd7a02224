/** Request helpers and checks shared by the flag test files. */
import assert from 'node:assert/strict'
import { allEvents, call, type ApiResponse, type TestApp } from '../test-app.ts'
import { checkOneRequest } from './events.ts'

export const projectPath = (project = 'default') => `/api/admin/projects/${project}`

export async function createProject(pennon: TestApp, id: string): Promise<void> {
  const response = await call(pennon, 'POST', '/api/admin/projects', { id, name: id })
  assert.equal(response.status, 201, response.text)
}

export async function createFlag(pennon: TestApp, name: string, project = 'default', body: Record<string, unknown> = {}): Promise<any> {
  const response = await call(pennon, 'POST', `${projectPath(project)}/features`, { name, ...body })
  assert.equal(response.status, 201, response.text)
  return response.body
}

export async function createFlags(pennon: TestApp, names: readonly string[], project = 'default'): Promise<void> {
  for (const name of names) await createFlag(pennon, name, project)
}

export function addDependency(
  pennon: TestApp,
  child: string,
  body: Record<string, unknown>,
  project = 'default',
  token?: string,
): Promise<ApiResponse> {
  return call(pennon, 'POST', `${projectPath(project)}/features/${child}/dependencies`, body, token === undefined ? {} : { token })
}

/** Adds `child → parent` and expects it to work. */
export async function depend(pennon: TestApp, child: string, parent: string, project = 'default'): Promise<void> {
  const response = await addDependency(pennon, child, { feature: parent }, project)
  assert.equal(response.status, 200, response.text)
}

export const archive = (pennon: TestApp, features: unknown, project = 'default') =>
  call(pennon, 'POST', `${projectPath(project)}/archive`, { features })
export const revive = (pennon: TestApp, features: unknown, project = 'default') =>
  call(pennon, 'POST', `${projectPath(project)}/revive`, { features })
export const deleteFlags = (pennon: TestApp, features: unknown, project = 'default') =>
  call(pennon, 'POST', `${projectPath(project)}/delete`, { features })
export const validate = (pennon: TestApp, features: unknown, project = 'default', token?: string | null) =>
  call(pennon, 'POST', `${projectPath(project)}/archive/validate`, { features }, token === undefined ? {} : { token })

export async function getFlag(pennon: TestApp, name: string, project = 'default'): Promise<any> {
  const response = await call(pennon, 'GET', `${projectPath(project)}/features/${name}`)
  assert.equal(response.status, 200, response.text)
  return response.body
}

export async function dependencyRows(
  pennon: TestApp,
): Promise<Array<{ child: string; parent: string; enabled: boolean; variants: string[] }>> {
  const rows = await pennon.database.db.selectFrom('feature_dependencies').selectAll().orderBy('child').execute()
  return rows.map((row) => ({ child: row.child, parent: row.parent, enabled: Boolean(row.enabled), variants: JSON.parse(row.variants) }))
}

/** Remembers how many events exist; `since()` returns those written after. */
export async function eventMark(pennon: TestApp): Promise<{ since(): Promise<any[]> }> {
  const count = (await allEvents(pennon)).length
  return { since: async () => (await allEvents(pennon)).slice(count) }
}

/**
 * Checks that events were written by one request (one groupId, one createdAt, the
 * admin token as author) and returns what is left to compare exactly.
 */
export function fromOneRequest(events: readonly any[], createdBy = 'admin', createdByUserId = -42): any[] {
  return checkOneRequest(events, createdBy, createdByUserId).map((event) => {
    assert.deepEqual(event.tags, [])
    assert.equal(event.environment, null)
    const { type, data, preData, featureName, project } = event
    return { type, featureName, project, data, preData }
  })
}

/** An expected flag event, as `fromOneRequest` leaves it. */
export const flagEvent = (type: string, featureName: string, project = 'default', data: unknown = null, preData: unknown = null) => ({
  type,
  featureName,
  project,
  data,
  preData,
})

/**
 * The invariant of docs/contract.md §2, read straight from the tables: every dependency links two
 * active flags of one project, a child has one parent, and no flag is parent and child.
 */
export async function assertInvariant(pennon: TestApp): Promise<void> {
  const db = pennon.database.db
  const flags = new Map(
    (await db.selectFrom('features').select(['name', 'project', 'archived_at']).execute()).map((row) => [row.name, row]),
  )
  const rows = await dependencyRows(pennon)
  const children = new Set(rows.map((row) => row.child))
  assert.equal(children.size, rows.length, 'a child has at most one parent')
  for (const { child, parent } of rows) {
    const c = flags.get(child)
    const p = flags.get(parent)
    assert.ok(c && p, `${child} → ${parent}: both flags exist`)
    assert.equal(c.archived_at, null, `${child} → ${parent}: the child is active`)
    assert.equal(p.archived_at, null, `${child} → ${parent}: the parent is active`)
    assert.equal(c.project, p.project, `${child} → ${parent}: one project`)
    assert.ok(!children.has(parent), `${child} → ${parent}: the parent is not a child`)
  }
}
