/** People in tests: users made through the API, signed in through the API. */
import assert from 'node:assert/strict'
import { call, type TestApp } from './test-app.ts'

export const PASSWORD = 'Correct-Horse-7-Battery'

/** Creates a user (root role 1 Admin, 2 Editor, 3 Viewer) with PASSWORD; returns its id. */
export async function createUser(
  pennon: TestApp,
  email: string,
  rootRole: 1 | 2 | 3,
  extra: Record<string, unknown> = {},
): Promise<number> {
  const created = await call(pennon, 'POST', '/api/admin/user-admin', { email, rootRole, password: PASSWORD, ...extra })
  assert.equal(created.status, 201, created.text)
  return created.body.id
}

/** Signs in; returns the Cookie header value that carries the session. */
export async function signIn(
  pennon: TestApp,
  username: string,
  password = PASSWORD,
  headers: Record<string, string> = {},
): Promise<string> {
  const response = await call(pennon, 'POST', '/auth/simple/login', { username, password }, { token: null, headers })
  assert.equal(response.status, 200, response.text)
  const setCookie = String(response.headers['set-cookie'])
  return setCookie.split(';')[0]!
}

/** Request options for a call made by a browser page of Pennon's own origin, signed in with `cookie`. */
export const asBrowser = (cookie: string, origin = 'http://localhost') => ({ token: null, headers: { cookie, origin } })
