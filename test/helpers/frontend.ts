/** Requests of the frontend API tests: a frontend token, a context as query parameters, a 200 answer's toggles. */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { call, type ApiResponse, type TestApp } from '../test-app.ts'

export const FRONTEND = '/api/frontend'
export const JSON_TYPE = 'application/json; charset=utf-8'
export const ETAG = /^"[A-Za-z0-9_-]{27}"$/

export async function frontendToken(pennon: TestApp, environment?: string, projects?: string[]): Promise<string> {
  const body = {
    tokenName: `frontend-${randomBytes(4).toString('hex')}`,
    type: 'frontend',
    ...(environment === undefined ? {} : { environment }),
    ...(projects === undefined ? {} : { projects }),
  }
  const response = await call(pennon, 'POST', '/api/admin/api-tokens', body)
  assert.equal(response.status, 201, response.text)
  return response.body.secret
}

/** Checks a 200 answer: JSON with a strong ETag; returns the toggles. */
export function togglesOf(response: ApiResponse): any[] {
  assert.equal(response.status, 200, response.text)
  assert.equal(response.headers['content-type'], JSON_TYPE)
  assert.match(response.headers.etag as string, ETAG)
  assert.deepEqual(Object.keys(response.body), ['toggles'])
  return response.body.toggles
}

/** A context sent as the browser SDK does (query parameters, custom ones as `properties[name]`). */
export function queryOf(context: Record<string, string>, properties: Record<string, string> = {}): string {
  const parameters = new URLSearchParams(context)
  for (const [name, value] of Object.entries(properties)) parameters.append(`properties[${name}]`, value)
  const text = parameters.toString()
  return text === '' ? '' : `?${text}`
}
