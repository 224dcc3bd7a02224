/**
 * Single sign-on in a real browser (test/browser.ts) against a real OpenID provider
 * (test/oidc-issuer.ts): the sign-in page shows the provider's link once an admin enables it; the
 * person signs in at the provider and comes back signed in to the console. An Admin sets it all
 * up on the Single sign-on page, tests the connection, turns passwords off and signs out at the
 * provider too. CONSOLE_SCREENSHOTS=1 writes docs/console/single-sign-on.png.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { heading, signIn, skip, startBrowserAndApp } from './browser.ts'
import { startIssuer } from './oidc-issuer.ts'
import { createUser, PASSWORD } from './people.ts'
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

  test('an Admin sets single sign-on up on its page, tests it, signs in with it, turns passwords off and signs out at the provider', {
    skip,
    timeout: 180_000,
  }, async (t) => {
    const { pennon, base, browser } = await startBrowserAndApp(t, database, { env: {} })
    const secret = 'the console journey client secret'
    const issuer = await startIssuer([
      {
        client_id: 'pennon',
        client_secret: secret,
        redirect_uris: [`${base}/auth/oidc/callback`],
        post_logout_redirect_uris: [`${base}/`],
      },
    ])
    t.after(() => issuer.stop())
    await createUser(pennon, 'root@example.com', 1)
    await createUser(pennon, 'vi@example.com', 3)
    const context = await browser.newContext()
    const page = await context.newPage()
    page.setDefaultTimeout(15_000)
    const errors: string[] = []
    page.on('pageerror', (error) => errors.push(error.message))
    const signInWithPassword = async (login: string) => {
      await page.goto(`${base}/`)
      await page.getByLabel('Email or username').fill(login)
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
      await page.getByRole('button', { name: 'Sign in', exact: true }).click()
      await heading(page, 'Projects')
    }
    const signOut = () => page.getByRole('button', { name: 'Sign out' }).click()

    // A Viewer meets an explanation, not a form.
    await signInWithPassword('vi@example.com')
    await page.goto(`${base}/#/single-sign-on`)
    await heading(page, 'Single sign-on')
    await page.getByText('Single sign-on settings (OpenID Connect, and whether passwords may sign in) need ADMIN.').waitFor()
    assert.equal(await page.getByLabel('Discovery URL').count(), 0)
    await signOut()
    // Signed out once the form shows: a navigation before the answer to POST /logout would cancel it.
    await page.getByLabel('Email or username').waitFor()

    await signInWithPassword('root@example.com')
    await page.getByRole('link', { name: 'Single sign-on' }).click()
    await heading(page, 'Single sign-on')
    await page.getByLabel('Discovery URL').fill(issuer.url)
    await page.getByLabel('Client ID').fill('pennon')
    // A wrong secret: the client's failure, in the provider's words.
    await page.getByLabel('Client secret').fill('not the secret')
    await page.getByRole('button', { name: 'Test the connection' }).click()
    const clientCheck = page.locator('[data-check="client"]')
    await clientCheck.waitFor()
    assert.equal(
      await clientCheck.textContent(),
      '✗ Client: The provider refused the client: the client id or the secret is wrong (invalid_client).',
    )
    assert.equal(await page.locator('[data-check="discovery"]').textContent(), `✓ Discovery: reached, issuer ${issuer.url}`)
    await page.getByLabel('Client secret').fill(secret)
    await page.getByLabel('Enable sign-in with OpenID Connect').check()
    await page.getByLabel('Single sign-out').check()
    await page.getByRole('button', { name: 'Test the connection' }).click()
    await page.locator('[data-check="client"][data-ok="true"]').waitFor()
    assert.equal(await clientCheck.textContent(), '✓ Client: the provider accepted the client ID and secret')
    if (process.env.CONSOLE_SCREENSHOTS === '1' && database.name === 'sqlite')
      await page.screenshot({ path: 'docs/console/single-sign-on.png', fullPage: true })
    // Passwords cannot go before OpenID Connect is on: the server's reason is shown.
    await page.getByRole('switch', { name: 'Password sign-in' }).click()
    await page.getByText('Password sign-in can only be turned off while OpenID Connect sign-in is enabled').waitFor()
    // An http provider elsewhere than this machine: refused beside its field, until it is changed.
    await page.getByLabel('Discovery URL').fill('http://login.example.com')
    await page.getByRole('button', { name: 'Save' }).click()
    const urlError = page.locator('.field-error:not([hidden])', { hasText: 'must be an https:// URL' })
    await urlError.waitFor()
    await page.getByLabel('Discovery URL').fill(issuer.url)
    assert.equal(await urlError.count(), 0)
    await page.getByRole('button', { name: 'Save' }).click()
    await page.locator('[role="status"]', { hasText: 'Single sign-on settings saved.' }).waitFor()
    const stored = await call(pennon, 'GET', '/api/admin/auth/oidc/settings')
    assert.deepEqual(
      [stored.body.enabled, stored.body.discoverUrl, stored.body.clientId, stored.body.enableSingleSignOut],
      [true, issuer.url, 'pennon', true],
    )
    // The secret field is empty again: what is stored is never shown.
    assert.equal(await page.getByLabel('Client secret').inputValue(), '')

    // A password session signs out here only; then in with the provider's button.
    await signOut()
    await page.getByRole('link', { name: 'Sign in with OpenID Connect' }).click()
    await page.waitForURL(`${issuer.url}/**`)
    await page.locator('input[name="login"]').fill('root@example.com')
    await page.locator('input[name="password"]').fill('anything')
    await page.getByRole('button', { name: 'Sign-in' }).click()
    await page.getByRole('button', { name: 'Continue' }).click()
    await heading(page, 'Projects')
    const me = await page.evaluate(async () => (await fetch('/api/admin/me')).json())
    assert.deepEqual([me.name, me.rootRole, me.session], ['root@example.com', 'Admin', true])

    await page.getByRole('link', { name: 'Single sign-on' }).click()
    await heading(page, 'Single sign-on')
    await page.getByRole('switch', { name: 'Password sign-in' }).click()
    await page.getByRole('switch', { name: 'Password sign-in', checked: false }).waitFor()
    assert.deepEqual((await call(pennon, 'GET', '/api/admin/auth/simple/settings')).body, { disabled: true })

    // Single sign-out: the browser goes on to the provider's end-session page.
    await signOut()
    await page.waitForURL(`${issuer.url}/session/end?**`)
    await page.getByRole('button', { name: /yes, sign me out/i }).waitFor()
    // Back at Pennon: only the provider's button (API tokens behind a disclosure), no password form.
    await page.goto(`${base}/`)
    await page.getByRole('link', { name: 'Sign in with OpenID Connect' }).waitFor()
    assert.equal(await page.getByLabel('Email or username').count(), 0)
    assert.equal(await page.getByRole('button', { name: 'Email and password' }).count(), 0)
    await page.getByText('Sign in with an API token').waitFor()
    assert.deepEqual(errors, [])
  })

  test('set by OIDC_* variables: the page says so and turns read-only; testing still tries the settings in force', {
    skip,
    timeout: 120_000,
  }, async (t) => {
    const secret = 'the environment client secret'
    const issuer = await startIssuer([
      { client_id: 'pennon', client_secret: secret, redirect_uris: ['http://localhost/auth/oidc/callback'] },
    ])
    t.after(() => issuer.stop())
    const { pennon, base, browser } = await startBrowserAndApp(t, database, {
      env: { OIDC_DISCOVER_URL: issuer.url, OIDC_CLIENT_ID: 'pennon', OIDC_SECRET: secret },
    })
    const page = await (await browser.newContext()).newPage()
    page.setDefaultTimeout(15_000)
    await signIn(page, base, pennon.adminToken)
    await page.getByRole('link', { name: 'Single sign-on' }).click()
    await heading(page, 'Single sign-on')
    assert.equal(await page.getByLabel('Discovery URL').inputValue(), issuer.url)
    // Read-only from the start (the settings say setByEnvironment): nobody edits a form that cannot be saved.
    await page.getByText('OpenID Connect is set by the environment (OIDC_DISCOVER_URL and the rest): change it there.').waitFor()
    assert.equal(await page.getByLabel('Discovery URL').isDisabled(), true)
    assert.equal(await page.getByRole('button', { name: 'Save' }).isDisabled(), true)
    await page.getByRole('button', { name: 'Test the connection' }).click()
    await page.locator('[data-check="client"][data-ok="true"]').waitFor()
  })
})
