/**
 * Single sign-on in a real browser (test/browser.ts) against a real OpenID provider
 * (test/oidc-issuer.ts): the sign-in page shows the provider's link once an admin enables it; the
 * person signs in at the provider and comes back signed in to the console.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { heading, skip, startBrowserAndApp } from './browser.ts'
import { startIssuer } from './oidc-issuer.ts'
import { createUser } from './people.ts'
import { call, onEachDatabase } from './test-app.ts'

onEachDatabase('console: single sign-on', (database) => {
  test('the sign-in page links to the provider; the person signs in there and lands in the console', {
    skip,
    timeout: 120_000,
  }, async (t) => {
    const { pennon, base, browser } = await startBrowserAndApp(t, database, { env: {} })
    const secret = 'the browser test client secret'
    const issuer = await startIssuer([{ client_id: 'pennon', client_secret: secret, redirect_uris: [`${base}/auth/oidc/callback`] }])
    t.after(() => issuer.stop())
    await createUser(pennon, 'sso@example.com', 2)
    const page = await (await browser.newContext()).newPage()
    page.setDefaultTimeout(15_000)
    const errors: string[] = []
    page.on('pageerror', (error) => errors.push(error.message))

    // Not enabled: no link.
    await page.goto(`${base}/`)
    await page.getByRole('heading', { name: 'Sign in to Pennon' }).waitFor()
    await page.getByLabel('Email or username').waitFor()
    assert.equal(await page.getByRole('link', { name: 'Sign in with OpenID Connect' }).count(), 0)

    const enabled = await call(pennon, 'POST', '/api/admin/auth/oidc/settings', {
      enabled: true,
      discoverUrl: issuer.url,
      clientId: 'pennon',
      secret,
    })
    assert.equal(enabled.status, 200, enabled.text)
    await page.reload()
    await page.getByRole('link', { name: 'Sign in with OpenID Connect' }).click()
    await page.waitForURL(`${issuer.url}/**`)
    await page.locator('input[name="login"]').fill('sso@example.com')
    await page.locator('input[name="password"]').fill('anything')
    await page.getByRole('button', { name: 'Sign-in' }).click()
    await page.getByRole('button', { name: 'Continue' }).click()
    await heading(page, 'Projects')
    assert.equal(new URL(page.url()).origin, base)
    const me = await page.evaluate(async () => (await fetch('/api/admin/me')).json())
    assert.deepEqual([me.name, me.rootRole, me.session], ['sso@example.com', 'Editor', true])
    assert.deepEqual(errors, [])
  })
})
