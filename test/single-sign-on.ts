/**
 * What the single sign-on tests share: two real OpenID providers (test/oidc-issuer.ts) with Pennon
 * registered as a client (and another application), Pennon set up to use the first, and what a
 * sign-in's end looks like.
 */
import assert from 'node:assert/strict'
import { after, before, type TestContext } from 'node:test'
import { startIssuer, type Issuer, type IssuerClient } from './oidc-issuer.ts'
import { call, useTestApp, type TestApp, type TestDatabase } from './test-app.ts'

export const PENNON = 'http://pennon.test'
export const SECRET = 'a client secret of forty characters, or so'
export const CLIENTS: IssuerClient[] = [
  {
    client_id: 'pennon',
    client_secret: SECRET,
    redirect_uris: [`${PENNON}/auth/oidc/callback`, 'http://localhost/auth/oidc/callback'],
    post_logout_redirect_uris: [`${PENNON}/`],
  },
  // Another application at the same provider: its codes and tokens are not for Pennon.
  { client_id: 'other-app', client_secret: 'the other secret', redirect_uris: [`${PENNON}/auth/oidc/callback`] },
]

/** Two providers for the file's tests, started before them and stopped after: Pennon uses `issuer`, never `other`. */
export function useIssuers(): { readonly issuer: Issuer; readonly other: Issuer } {
  let started: [Issuer, Issuer] | undefined
  before(async () => {
    started = await Promise.all([startIssuer(CLIENTS), startIssuer(CLIENTS)])
  })
  after(async () => {
    await Promise.all(started?.map((issuer) => issuer.stop()) ?? [])
  })
  return {
    get issuer() {
      return started![0]
    },
    get other() {
      return started![1]
    },
  }
}

/** Settings that enable sign-in through `issuer` as the client `pennon`, with `extra`. */
export const ssoSettings = (issuer: Issuer, extra: Record<string, unknown> = {}) => ({
  enabled: true,
  discoverUrl: `${issuer.url}/.well-known/openid-configuration`,
  clientId: 'pennon',
  secret: SECRET,
  ...extra,
})

/** Pennon at PUBLIC_URL http://pennon.test, with OpenID Connect set to `settings`. */
export async function pennonWith(t: TestContext, database: TestDatabase, settings: Record<string, unknown>): Promise<TestApp> {
  const pennon = await useTestApp(t, database, { env: { PUBLIC_URL: PENNON } })
  const stored = await call(pennon, 'POST', '/api/admin/auth/oidc/settings', settings)
  assert.equal(stored.status, 200, stored.text)
  return pennon
}

/** The session cookie a successful callback set. */
export function sessionCookieOf(response: { headers: Record<string, unknown> }): string {
  const line = [response.headers['set-cookie']]
    .flat()
    .map(String)
    .find((cookie) => cookie.startsWith('pennon-session='))
  assert.ok(line, 'a session cookie')
  assert.match(line, /^pennon-session=[0-9a-f]{64}; Max-Age=604800; Path=\/; HttpOnly; SameSite=Lax$/)
  return line.split(';')[0]!
}

/** A failed sign-in: the error page, a 400, and no session. */
export function assertRefused(response: { status: number; headers: Record<string, unknown>; text: string }, message: RegExp): void {
  assert.equal(response.status, 400, response.text)
  assert.equal(response.headers['content-type'], 'text/html; charset=utf-8')
  assert.match(response.text, /<h1>Sign-in failed<\/h1>/)
  assert.match(response.text, message)
  assert.ok(![response.headers['set-cookie']].flat().some((cookie) => String(cookie).startsWith('pennon-session=')), 'no session')
}
