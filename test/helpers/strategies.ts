/** Request helpers and checks shared by the strategy and flag-environment test files. */
import assert from 'node:assert/strict'
import { call, type ApiResponse, type TestApp } from '../test-app.ts'
import { checkOneRequest } from './events.ts'
import { projectPath } from './flags.ts'

export const JSON_TYPE = 'application/json; charset=utf-8'
export const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/

/** `/api/admin/projects/:p/features/:f/environments/:env`, the place of a flag in an environment. */
export const placePath = (feature: string, environment: string, project = 'default') =>
  `${projectPath(project)}/features/${feature}/environments/${environment}`
export const strategiesPath = (feature: string, environment: string, project = 'default') =>
  `${placePath(feature, environment, project)}/strategies`

export async function addStrategy(
  pennon: TestApp,
  feature: string,
  environment: string,
  body: Record<string, unknown>,
  project = 'default',
): Promise<any> {
  const response = await call(pennon, 'POST', strategiesPath(feature, environment, project), body)
  assert.equal(response.status, 200, response.text)
  return response.body
}

export async function listStrategies(pennon: TestApp, feature: string, environment: string, project = 'default'): Promise<any[]> {
  const response = await call(pennon, 'GET', strategiesPath(feature, environment, project))
  assert.equal(response.status, 200, response.text)
  return response.body
}

export const toggle = (pennon: TestApp, feature: string, environment: string, state: 'on' | 'off', project = 'default', token?: string) =>
  call(pennon, 'POST', `${placePath(feature, environment, project)}/${state}`, undefined, token === undefined ? {} : { token })

/** The flag's state in one environment, through the API. */
export async function placeOf(pennon: TestApp, feature: string, environment: string, project = 'default'): Promise<any> {
  const response = await call(pennon, 'GET', placePath(feature, environment, project))
  assert.equal(response.status, 200, response.text)
  return response.body
}

/** A 200 with no body: what on/off, delete and set-sort-order answer. */
export function assertEmpty(response: ApiResponse): void {
  assert.equal(response.status, 200, response.text)
  assert.equal(response.text, '')
}

/** A 200 JSON answer: returns the body. */
export function jsonOk(response: ApiResponse): any {
  assert.equal(response.status, 200, response.text)
  assert.equal(response.headers['content-type'], JSON_TYPE)
  return response.body
}

/** The strategy `on` adds where none is active. */
export const defaultStrategy = (feature: string, id: string, sortOrder = 0) => ({
  id,
  name: 'flexibleRollout',
  constraints: [],
  parameters: { rollout: '100', stickiness: 'default', groupId: feature },
  variants: [],
  segments: [],
  title: null,
  disabled: false,
  sortOrder,
})

/**
 * Like helpers/flags.ts' fromOneRequest, for events that may name an environment: checks
 * they were written by one request (one groupId, one createdAt, one author) and returns
 * what is left to compare exactly.
 */
export function fromOneRequestIn(events: readonly any[], createdBy = 'admin', createdByUserId = -42): any[] {
  return checkOneRequest(events, createdBy, createdByUserId).map((event) => {
    assert.deepEqual(event.tags, [])
    const { type, featureName, project, environment, data, preData } = event
    return { type, featureName, project, environment, data, preData }
  })
}

/** An expected event of a flag's environment, as `fromOneRequestIn` leaves it. */
export const placeEvent = (
  type: string,
  featureName: string,
  environment: string,
  data: unknown = null,
  preData: unknown = null,
  project = 'default',
) => ({
  type,
  featureName,
  project,
  environment,
  data,
  preData,
})

/** A 400 ValidationError body (without its id) listing `details`, the message being the first's plus the count of the others. */
export function validationError(...details: Array<{ path?: string; message: string }>): Record<string, unknown> {
  const more = details.length > 1 ? ` (${details.length - 1} more problem${details.length > 2 ? 's' : ''} listed in details)` : ''
  return { name: 'ValidationError', message: details[0]!.message + more, details }
}

export const at = (path: string, message: string) => ({ path, message })
