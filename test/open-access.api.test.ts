/**
 * AUTH_TYPE=none on a laptop (docs/security.md, "AUTH_TYPE=none"): another site's page may not
 * change anything (the cross-site check sessions have).
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { allEvents, apiToken, call, errorOf, onEachDatabase, useTestApp, withoutId, type TestApp } from './test-app.ts'

const CROSS_SITE = errorOf('NoAccessError', "Cross-site request refused: with AUTH_TYPE=none, a request without an API token that changes something must come from Pennon's own pages.")
const JSON_TYPE = 'application/json; charset=utf-8'

// What an auto-submitting HTML form on another site sends (Chromium's headers, test/open-access.browser.test.ts).
const FORM_POST = { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', 'content-type': 'application/x-www-form-urlencoded' }

const flagPath = (name: string) => `/api/admin/projects/default/features/${name}`

async function enabledIn(pennon: TestApp, flag: string, environment = 'development'): Promise<boolean> {
  const read = await call(pennon, 'GET', `${flagPath(flag)}/environments/${environment}`, undefined, { token: null })
  assert.equal(read.status, 200, read.text)
  return read.body.enabled
}

const switchedOn = async (pennon: TestApp) => (await allEvents(pennon)).filter((event) => event.type === 'feature-environment-enabled').length

onEachDatabase('AUTH_TYPE=none: cross-site changes', (database) => {
  test("another site's form cannot switch a flag on; same-origin pages, curl and tokens can", async (t) => {
    const pennon = await useTestApp(t, database, { env: { AUTH_TYPE: 'none' } })
    assert.equal((await call(pennon, 'POST', '/api/admin/projects/default/features', { name: 'checkout' }, { token: null })).status, 201)
    const on = `${flagPath('checkout')}/environments/development/on`

    // A form posts without a body schema's JSON: the route that takes no body is the one it can reach.
    for (const headers of [FORM_POST, { ...FORM_POST, 'content-type': 'text/plain' }, { 'sec-fetch-site': 'cross-site' }, { origin: 'null' }, { origin: 'http://localhost:3000' }] as Record<string, string>[]) {
      const refused = await call(pennon, 'POST', on, undefined, { token: null, headers, raw: 'x=1' })
      assert.equal(refused.status, 403, JSON.stringify(headers))
      assert.equal(refused.headers['content-type'], JSON_TYPE)
      assert.equal(refused.headers['x-content-type-options'], 'nosniff')
      assert.deepEqual(withoutId(refused.body), CROSS_SITE)
    }
    // A text/plain body holding JSON reaches no route that takes JSON; it is refused the same way.
    const project = await call(pennon, 'POST', '/api/admin/projects', undefined, { token: null, headers: { ...FORM_POST, 'content-type': 'text/plain' }, raw: '{"id":"planted","name":"Planted"}' })
    assert.equal(project.status, 403)
    assert.deepEqual(withoutId(project.body), CROSS_SITE)
    assert.equal(await enabledIn(pennon, 'checkout'), false)
    assert.equal(await switchedOn(pennon), 0)
    assert.equal((await call(pennon, 'GET', '/api/admin/projects/planted', undefined, { token: null })).status, 404)

    // Reads from anywhere are answered (a page of another origin cannot read them: no CORS).
    assert.equal((await call(pennon, 'GET', flagPath('checkout'), undefined, { token: null, headers: { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' } })).status, 200)
    // Pennon's own pages, curl (neither header) and a real token from anywhere change things.
    const off = `${flagPath('checkout')}/environments/development/off`
    const admin = await apiToken(pennon, 'admin', 'laptop-admin')
    for (const [path, token, headers] of [
      [on, null, { origin: 'http://localhost', 'sec-fetch-site': 'same-origin' }],
      [off, null, { 'sec-fetch-site': 'same-origin' }],
      [on, null, {}],
      [off, null, { 'sec-fetch-site': 'none' }],
      [on, admin, FORM_POST],
    ] as const) {
      const accepted = await call(pennon, 'POST', path, undefined, { token, headers })
      assert.equal(accepted.status, 200, `${path} ${JSON.stringify(headers)}: ${accepted.text}`)
      assert.equal(accepted.text, '')
    }
    assert.equal(await enabledIn(pennon, 'checkout'), true)
    assert.equal(await switchedOn(pennon), 3)
  })

  test('PUBLIC_URL is an own origin; the frontend API stays open to every origin', async (t) => {
    const pennon = await useTestApp(t, database, { env: { AUTH_TYPE: 'none', PUBLIC_URL: 'https://flags.example.com' } })
    const created = await call(pennon, 'POST', '/api/admin/projects', { id: 'own', name: 'Own' }, { token: null, headers: { origin: 'https://flags.example.com', host: 'flags.example.com' } })
    assert.equal(created.status, 201, created.text)
    const elsewhere = await call(pennon, 'POST', '/api/admin/projects', { id: 'other', name: 'Other' }, { token: null, headers: { origin: 'https://other.example.com' } })
    assert.equal(elsewhere.status, 403)
    assert.deepEqual(withoutId(elsewhere.body), CROSS_SITE)
    // A browser SDK on any site calls it with a key that is no token here; evaluating changes nothing.
    const evaluated = await call(pennon, 'POST', '/api/frontend', { context: { userId: '7' } }, { token: 'any-key', headers: { origin: 'http://localhost:3000', 'sec-fetch-site': 'same-site' } })
    assert.equal(evaluated.status, 200, evaluated.text)
    assert.deepEqual(evaluated.body, { toggles: [] })
  })
})
