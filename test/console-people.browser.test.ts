/**
 * People in the console, in a real browser (test/browser.ts): an Admin user signs in with a
 * password and invites a Viewer; the Viewer sets a password from the link in a browser of their
 * own, signs in, meets what the role lacks, makes a personal access token (used from Node) and
 * signs out, which ends the cookie. A form another origin posts with the admin's cookie is refused.
 * An invite or reset link's secret reaches the server in request bodies only, never in a URL. A
 * root-role change is confirmed first, and changing your own says why you were signed out.
 */
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { createServer, type IncomingMessage } from 'node:http'
import { test } from 'node:test'
import type { AddressInfo } from 'node:net'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { heading, skip, startBrowserAndApp } from './browser.ts'
import { createUser, PASSWORD } from './people.ts'
import { call, errorOf, onEachDatabase, withoutId } from './test-app.ts'

const execFileAsync = promisify(execFile)
const VERA_PASSWORD = 'Vera-Sets-Her-0wn!'
const CROSS_SITE =
  "Cross-site request refused: a request signed in with a session cookie that changes something must come from Pennon's own pages."

/** The session cookie a browser context holds, as a Cookie header. */
async function sessionCookie(context: BrowserContext, base: string): Promise<string> {
  const cookie = (await context.cookies(base)).find((candidate) => candidate.name === 'pennon-session')
  assert.ok(cookie, 'a session cookie')
  assert.equal(cookie.httpOnly, true)
  assert.equal(cookie.sameSite, 'Lax')
  return `pennon-session=${cookie.value}`
}

async function signInWithPassword(page: Page, base: string, login: string, password: string): Promise<void> {
  await page.goto(`${base}/`)
  await page.getByLabel('Email or username').fill(login)
  await page.getByLabel('Password', { exact: true }).fill(password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.locator('#nav:not([hidden])').waitFor()
}

/** A page of its own browser context, failing the test on script errors. */
async function openPage(browser: Browser, problems: string[]): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' })
  const page = await context.newPage()
  page.setDefaultTimeout(15_000)
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`)
  })
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`))
  return { context, page }
}

/** The 4xx answers a journey provokes on purpose (no session yet, a wrong password, a weak one, a refused post) are no problem. */
const realProblems = (problems: string[]) =>
  problems.filter((problem) => !/Failed to load resource: the server responded with a status of 4\d\d/.test(problem))

onEachDatabase('console people in a browser', (database) => {
  test("an invite or reset link's secret is never in a URL: neither the browser's requests nor what the server receives carry it outside a body", {
    skip,
    timeout: 180_000,
  }, async (t) => {
    const { pennon, base, browser } = await startBrowserAndApp(t, database)
    // What the server receives: every request line and its headers, before Fastify (or the fast path) sees it.
    const received: string[] = []
    pennon.app.server.prependListener('request', (request: IncomingMessage) =>
      received.push(`${request.method} ${request.url} ${JSON.stringify(request.headers)}`),
    )
    // What the browsers send: the request line (a fragment is never sent) and the headers, Referer included.
    const sent: string[] = []
    const problems: string[] = []
    const open = async () => {
      const { page } = await openPage(browser, problems)
      page.on('request', (request) => {
        const url = new URL(request.url())
        sent.push(`${request.method()} ${url.pathname}${url.search} ${JSON.stringify(request.headers())}`)
      })
      return page
    }
    await createUser(pennon, 'root@example.com', 1)
    const admin = await open()
    const vera = await open()
    const secrets: string[] = []
    const secretOf = (link: string) => {
      assert.match(link, new RegExp(`^${base}/#/reset-password\\?token=[0-9a-f]{64}$`))
      const secret = link.split('token=')[1]!
      secrets.push(secret)
      return secret
    }
    const carrying = (lines: string[]) => lines.filter((line) => secrets.some((secret) => line.includes(secret)))

    // The admin invites; the invitee opens the link, sets a password and signs in.
    await signInWithPassword(admin, base, 'root@example.com', PASSWORD)
    await admin.goto(`${base}/#/users`)
    await heading(admin, 'Users')
    await admin.getByLabel('Email').fill('vera@example.com')
    await admin.getByRole('button', { name: 'Create user' }).click()
    const inviteLink = await admin.getByLabel('Link', { exact: true }).inputValue()
    secretOf(inviteLink)
    await vera.goto(inviteLink)
    await vera.getByRole('heading', { name: 'Set your password' }).waitFor()
    assert.equal(await vera.locator('[data-login]').innerText(), 'vera@example.com')
    await vera.getByLabel('New password', { exact: true }).fill(VERA_PASSWORD)
    await vera.getByLabel('Repeat the password', { exact: true }).fill(VERA_PASSWORD)
    await vera.getByRole('button', { name: 'Set password' }).click()
    await vera.getByText('Your password is set: sign in with it.').waitFor()
    // The link left this tab's address (and its history entry) once used.
    assert.equal(vera.url(), `${base}/#/projects`)
    await vera.getByLabel('Password', { exact: true }).fill(VERA_PASSWORD)
    await vera.getByRole('button', { name: 'Sign in' }).click()
    await heading(vera, 'Projects')

    // A reset link, opened while signed in, the same way.
    await admin.getByRole('button', { name: 'Reset link for vera@example.com' }).click()
    await admin.getByText('Password reset link for vera@example.com').waitFor()
    const resetLink = await admin.getByLabel('Link', { exact: true }).inputValue()
    secretOf(resetLink)
    await vera.goto(resetLink)
    await vera.getByRole('heading', { name: 'Set your password' }).waitFor()
    await vera.getByLabel('New password', { exact: true }).fill(`${VERA_PASSWORD}2`)
    await vera.getByLabel('Repeat the password', { exact: true }).fill(`${VERA_PASSWORD}2`)
    await vera.getByRole('button', { name: 'Set password' }).click()
    await vera.getByText('Your password is set: sign in with it.').waitFor()
    await signInWithPassword(vera, base, 'vera@example.com', `${VERA_PASSWORD}2`)

    // No request line or header held a secret: they went in the bodies of the routes that take them.
    assert.deepEqual(carrying(received), [], 'what the server received')
    assert.deepEqual(carrying(sent), [], 'what the browsers sent')
    const lines = received.map((line) => line.split(' ', 2).join(' '))
    assert.deepEqual(
      ['POST /auth/reset/validate', 'POST /auth/reset/password'].map((line) => lines.filter((candidate) => candidate === line).length),
      [2, 2],
    )
    assert.deepEqual(realProblems(problems), [])
  })

  test('a root-role change is confirmed first: Cancel keeps the role, confirming changes it; changing your own warns, then signs you out saying why', {
    skip,
    timeout: 180_000,
  }, async (t) => {
    const { pennon, base, browser } = await startBrowserAndApp(t, database)
    const problems: string[] = []
    const rootId = await createUser(pennon, 'root@example.com', 1)
    const veraId = await createUser(pennon, 'vera@example.com', 3)
    const roleOf = async (id: number) => (await call(pennon, 'GET', `/api/admin/user-admin/${id}`)).body.rootRole as number
    const { page: admin } = await openPage(browser, problems)
    await signInWithPassword(admin, base, 'root@example.com', PASSWORD)
    await admin.goto(`${base}/#/users`)
    await heading(admin, 'Users')
    const dialog = admin.getByRole('dialog')
    const paragraphs = () => dialog.locator('.dialog-body p').allInnerTexts()

    // Someone else's role: Cancel (or Escape) changes nothing and puts the select back.
    const veraRole = admin.getByLabel('Root role of vera@example.com', { exact: true })
    await veraRole.selectOption({ label: 'Editor' })
    await dialog.getByRole('heading', { name: 'Change the root role of vera@example.com to Editor?' }).waitFor()
    assert.deepEqual(await paragraphs(), [
      'Editor: Users with the root editor role can change flags, strategies, segments, context fields, tag types and projects, but not tokens or users.',
      'Their sessions end at once: they sign in again as Editor. Their personal access tokens act as Editor from now on.',
    ])
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    await dialog.waitFor({ state: 'detached' })
    assert.equal(await veraRole.inputValue(), '3')
    assert.equal(await roleOf(veraId), 3)
    await veraRole.selectOption({ label: 'Admin' })
    await dialog.getByRole('heading', { name: 'Change the root role of vera@example.com to Admin?' }).waitFor()
    await admin.keyboard.press('Escape')
    await dialog.waitFor({ state: 'detached' })
    assert.equal(await veraRole.inputValue(), '3')
    assert.equal(await roleOf(veraId), 3)
    // Confirmed: changed.
    await veraRole.selectOption({ label: 'Editor' })
    await dialog.getByRole('button', { name: 'Change root role' }).click()
    await admin.getByText('vera@example.com is now Editor; their sessions ended.').waitFor({ state: 'attached' })
    assert.equal(await veraRole.inputValue(), '2')
    assert.equal(await roleOf(veraId), 2)

    // Your own role: a warning of its own; Cancel keeps you signed in, an Admin.
    const ownRole = admin.getByLabel('Root role of root@example.com', { exact: true })
    await ownRole.selectOption({ label: 'Viewer' })
    await dialog.getByRole('heading', { name: 'Change your own root role to Viewer?' }).waitFor()
    assert.deepEqual(await paragraphs(), [
      'Viewer: Users with the root viewer role can only read.',
      'This is you: you will be signed out at once, and sign in again as Viewer. Only another admin can make you Admin again.',
    ])
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    await dialog.waitFor({ state: 'detached' })
    assert.equal(await ownRole.inputValue(), '1')
    assert.equal(await roleOf(rootId), 1)
    await admin.locator('.who', { hasText: 'Admin' }).waitFor()
    // Confirmed: the change ends your session, and the sign-in page says so.
    await ownRole.selectOption({ label: 'Viewer' })
    await dialog.getByRole('button', { name: 'Change root role' }).click()
    await admin.getByText('Your root role is now Viewer, and a role change ends your sessions: sign in again to go on as Viewer.').waitFor()
    assert.equal(await roleOf(rootId), 3)
    assert.equal(await admin.getByLabel('Email or username').inputValue(), 'root@example.com')
    await admin.getByLabel('Password', { exact: true }).fill(PASSWORD)
    await admin.getByRole('button', { name: 'Sign in' }).click()
    await heading(admin, 'Users')
    await admin.locator('.who', { hasText: 'Viewer' }).getByRole('link', { name: 'root@example.com' }).waitFor()
    await admin.getByText('Listing, inviting and changing users needs ADMIN.').waitFor()
    assert.deepEqual(realProblems(problems), [])
  })

  test('invite a Viewer who sets a password, signs in, meets the role, makes a personal token and signs out; a cross-site form post is refused', {
    skip,
    timeout: 300_000,
  }, async (t) => {
    const { pennon, base, browser } = await startBrowserAndApp(t, database)
    const problems: string[] = []
    const newPage = () => openPage(browser, problems)
    const shot = async (page: Page, name: string) => {
      if (process.env.CONSOLE_SCREENSHOTS === '1' && database.name === 'sqlite')
        await page.screenshot({ path: `docs/console/${name}.png`, fullPage: true })
    }
    const rootId = await createUser(pennon, 'root@example.com', 1, { name: 'Root' })
    const { context: adminContext, page: admin } = await newPage()
    const { context: veraContext, page: vera } = await newPage()
    let inviteLink = ''
    let adminCookie = ''

    await t.test('an Admin user signs in with email and password', async () => {
      await admin.goto(`${base}/`)
      await admin.getByLabel('Email or username').fill('root@example.com')
      await admin.getByLabel('Password', { exact: true }).fill('not-the-password')
      await admin.getByRole('button', { name: 'Sign in' }).click()
      await admin.getByRole('alert').filter({ hasText: 'Wrong password, try again.' }).waitFor()
      await admin.getByLabel('Password', { exact: true }).fill(PASSWORD)
      await admin.getByRole('button', { name: 'Sign in' }).click()
      await heading(admin, 'Projects')
      await admin.locator('.who', { hasText: 'Admin' }).getByRole('link', { name: 'root@example.com' }).waitFor()
      // A session: no token in the tab, an HttpOnly cookie instead.
      assert.equal(await admin.evaluate(() => sessionStorage.getItem('pennon.token')), null)
      adminCookie = await sessionCookie(adminContext, base)
      // A reload finds the session again (GET /api/admin/me with the cookie).
      await admin.reload()
      await heading(admin, 'Projects')
    })

    await t.test('the admin invites a Viewer on the Users page: no email is sent, the link is shown', async () => {
      await admin.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Users' }).click()
      await heading(admin, 'Users')
      await admin.getByLabel('Email').fill('vera@example.com')
      await admin.getByLabel('Name', { exact: true }).fill('Vera')
      await admin.getByLabel('Root role', { exact: true }).selectOption({ label: 'Viewer' })
      await admin.getByRole('button', { name: 'Create user' }).click()
      await admin.getByText('No email is sent: copy this link and hand it to vera@example.com.', { exact: false }).waitFor()
      inviteLink = await admin.getByLabel('Link', { exact: true }).inputValue()
      assert.match(inviteLink, new RegExp(`^${base}/#/reset-password\\?token=[0-9a-f]+$`))
      const row = admin.locator('tr[data-user="vera@example.com"]')
      assert.equal(await row.getByLabel('Root role of vera@example.com', { exact: true }).inputValue(), '3')
      assert.match(await row.innerText(), /Vera\s.*never/s)
      await shot(admin, 'users')
      const users = (await call(pennon, 'GET', '/api/admin/user-admin')).body.users as Array<{
        email: string
        name: string
        rootRole: number
      }>
      assert.deepEqual(
        users.map((user) => [user.email, user.name, user.rootRole]),
        [
          ['root@example.com', 'Root', 1],
          ['vera@example.com', 'Vera', 3],
        ],
      )
    })

    await t.test('the invited Viewer opens the link in a browser of their own and sets a password, meeting the rules first', async () => {
      await vera.goto(inviteLink)
      await vera.getByRole('heading', { name: 'Set your password' }).waitFor()
      assert.equal(await vera.locator('[data-login]').innerText(), 'Vera (vera@example.com)')
      await vera.getByLabel('New password', { exact: true }).fill('short')
      await vera.getByLabel('Repeat the password', { exact: true }).fill('short')
      await vera.getByRole('button', { name: 'Set password' }).click()
      const rules = vera.getByRole('alert').filter({ hasText: 'does not meet the rules' })
      await rules.waitFor()
      assert.deepEqual(await rules.locator('li').allInnerTexts(), [
        'The password must be at least 10 characters long.',
        'The password must contain at least one uppercase letter.',
        'The password must contain at least one number.',
        'The password must contain at least one special character.',
      ])
      await shot(vera, 'reset-password')
      await vera.getByLabel('New password', { exact: true }).fill(VERA_PASSWORD)
      await vera.getByLabel('Repeat the password', { exact: true }).fill(`${VERA_PASSWORD}?`)
      await vera.getByRole('button', { name: 'Set password' }).click()
      await vera.getByRole('alert').filter({ hasText: 'The two passwords differ.' }).waitFor()
      await vera.getByLabel('Repeat the password', { exact: true }).fill(VERA_PASSWORD)
      await vera.getByRole('button', { name: 'Set password' }).click()
      // Then the sign-in page, their email filled in.
      await vera.getByText('Your password is set: sign in with it.').waitFor()
      assert.equal(await vera.getByLabel('Email or username').inputValue(), 'vera@example.com')
      assert.equal(vera.url(), `${base}/#/projects`)
      // The link is used up.
      assert.equal(
        (
          await call(
            pennon,
            'GET',
            `/auth/reset/validate?token=${new URL(inviteLink.replace('#/', '')).searchParams.get('token')}`,
            undefined,
            { token: null },
          )
        ).status,
        401,
      )
    })

    await t.test('the Viewer signs in with email and password and is refused what the role lacks', async () => {
      await vera.getByLabel('Password', { exact: true }).fill(VERA_PASSWORD)
      await vera.getByRole('button', { name: 'Sign in' }).click()
      await heading(vera, 'Projects')
      await vera.locator('.who', { hasText: 'Viewer' }).getByRole('link', { name: 'vera@example.com' }).waitFor()
      // The Users item is there, disabled, naming the permission.
      const users = vera.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Users' })
      assert.equal(await users.getAttribute('aria-disabled'), 'true')
      await vera.locator('#nav a[data-href="#/users"] + small.needs', { hasText: 'Needs ADMIN' }).waitFor()
      await vera.goto(`${base}/#/projects/default`)
      await heading(vera, 'Project default')
      assert.ok(await vera.getByRole('button', { name: 'Create flag' }).isDisabled())
      await vera.getByText('Needs CREATE_FEATURE', { exact: true }).waitFor()
      // The API says the same to a call the page makes itself, with the session cookie.
      const direct = await vera.evaluate(async () => {
        const response = await fetch('/api/admin/projects/default/features', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'viewer-flag' }),
        })
        return { status: response.status, body: await response.json() }
      })
      assert.equal(direct.status, 403)
      assert.deepEqual(
        withoutId(direct.body),
        errorOf('NoAccessError', 'Missing permission: this operation needs "CREATE_FEATURE".', { permissions: ['CREATE_FEATURE'] }),
      )
      await vera.goto(`${base}/#/users`)
      await heading(vera, 'Users')
      await vera.getByText('Listing, inviting and changing users needs ADMIN.').waitFor()
      assert.ok(await vera.getByRole('button', { name: 'Create user' }).isDisabled())
    })

    let veraId = 0
    await t.test('on the profile page the Viewer makes a personal access token, shown once, and it works from Node', async () => {
      await vera.locator('.who').getByRole('link', { name: 'vera@example.com' }).click()
      await heading(vera, 'vera@example.com')
      await vera.locator('.facts', { hasText: 'Viewer' }).waitFor()
      await vera.getByLabel('Description').fill('ci script')
      await vera.getByRole('button', { name: 'Create token' }).click()
      const secretInput = vera.locator('input.secret')
      await secretInput.waitFor()
      const secret = await secretInput.inputValue()
      await vera.getByText('Copy this secret now: it is shown only this once.').waitFor()
      await vera.getByRole('button', { name: 'Copy' }).waitFor()
      const row = vera.locator('tr', { has: vera.getByRole('rowheader', { name: 'ci script' }) })
      assert.match(await row.innerText(), /never/)
      await shot(vera, 'profile')
      // The token works from a shell, as a script would use it: curl.
      const curl = await execFileAsync('curl', [
        '--silent',
        '--show-error',
        '--write-out',
        '\n%{http_code}',
        '--header',
        `Authorization: ${secret}`,
        `${base}/api/admin/me`,
      ])
      const [text, status] = curl.stdout.split('\n')
      assert.equal(status, '200')
      const body = JSON.parse(text!) as { id: number }
      veraId = body.id
      assert.deepEqual(body, { kind: 'user', name: 'vera@example.com', id: veraId, rootRole: 'Viewer', permissions: [] })
    })

    await t.test('the profile page changes the password: a wrong current one is refused without signing out', async () => {
      await vera.getByLabel('Current password').fill('not-my-password')
      await vera.getByLabel('New password', { exact: true }).fill(`${VERA_PASSWORD}2`)
      await vera.getByLabel('Repeat the new password').fill(`${VERA_PASSWORD}2`)
      await vera.getByRole('button', { name: 'Change password' }).click()
      await vera.getByRole('alert').filter({ hasText: 'Wrong password, try again.' }).waitFor()
      assert.ok(await vera.locator('#nav').isVisible(), 'still signed in')
      await vera.getByLabel('Current password').fill(VERA_PASSWORD)
      await vera.getByRole('button', { name: 'Change password' }).click()
      await vera.getByText('Your password is changed.', { exact: false }).waitFor()
      assert.equal(
        (await call(pennon, 'POST', '/auth/simple/login', { username: 'vera@example.com', password: `${VERA_PASSWORD}2` }, { token: null }))
          .status,
        200,
      )
    })

    await t.test('the Viewer signs out, and the cookie they had no longer works', async () => {
      const cookie = await sessionCookie(veraContext, base)
      const meWith = (headers: Record<string, string>) => fetch(`${base}/api/admin/me`, { headers })
      assert.equal((await meWith({ cookie })).status, 200)
      await vera.getByRole('button', { name: 'Sign out' }).click()
      await vera.getByLabel('Email or username').waitFor()
      const after = await meWith({ cookie })
      assert.equal(after.status, 401)
      assert.equal(
        (await veraContext.cookies(base)).some((candidate) => candidate.name === 'pennon-session' && candidate.value !== ''),
        false,
        'the browser dropped it',
      )
      // A reload finds no session: the sign-in page again.
      await vera.reload()
      await vera.getByLabel('Email or username').waitFor()
    })

    await t.test("a form another origin's page posts with the admin's cookie is refused, and nothing is created", async () => {
      const flags = async () =>
        ((await call(pennon, 'GET', '/api/admin/projects/default/features')).body.features as Array<{ name: string }>).map(
          (flag) => flag.name,
        )
      const target = `${base}/api/admin/projects/default/features`
      // text/plain lets a form send a JSON-looking body: {"name":"evil-flag","x":"="}.
      const evil = createServer((_request, response) => {
        response.setHeader('content-type', 'text/html; charset=utf-8')
        response.end(`<!doctype html><title>Win a prize</title>
<form method="POST" action="${target}" enctype="text/plain"><input type="hidden" name='{"name":"evil-flag","x":"' value='"}'></form>
<script>document.forms[0].submit()</script>`)
      })
      evil.listen(0, '127.0.0.1')
      await once(evil, 'listening')
      t.after(() => new Promise<void>((resolve) => evil.close(() => resolve())))
      const evilUrl = `http://127.0.0.1:${(evil.address() as AddressInfo).port}/`
      const answered = admin.waitForResponse((response) => response.url() === target && response.request().method() === 'POST')
      await admin.goto(evilUrl)
      const response = await answered
      const sent = await response.request().allHeaders()
      t.diagnostic(
        `the cross-origin form post: Origin ${sent.origin}, session cookie ${sent.cookie?.includes('pennon-session') ? 'sent' : 'not sent'} (another port of 127.0.0.1 is the same site), answer ${response.status()}`,
      )
      if (sent.cookie?.includes('pennon-session')) {
        assert.equal(response.status(), 403)
        assert.deepEqual(withoutId(await response.json()), errorOf('NoAccessError', CROSS_SITE))
      } else {
        // Without the cookie the post is nobody's.
        assert.equal(response.status(), 401)
      }
      assert.deepEqual(await flags(), [])

      // The same cookie from Node: another origin named, refused; Pennon's own, carried out.
      const post = (origin: string, name: string) =>
        fetch(target, {
          method: 'POST',
          headers: { cookie: adminCookie, origin, 'content-type': 'application/json' },
          body: JSON.stringify({ name }),
        })
      const refused = await post('http://evil.example', 'evil-flag')
      assert.equal(refused.status, 403)
      assert.deepEqual(withoutId((await refused.json()) as { id?: unknown }), errorOf('NoAccessError', CROSS_SITE))
      assert.deepEqual(await flags(), [])
      assert.equal((await post(base, 'own-flag')).status, 201)
      assert.deepEqual(await flags(), ['own-flag'])
    })

    await t.test("the admin changes the Viewer's root role, makes a reset link, and is refused deleting the last Admin", async () => {
      await admin.goto(`${base}/#/users`)
      await heading(admin, 'Users')
      await admin.getByLabel('Root role of vera@example.com', { exact: true }).selectOption({ label: 'Editor' })
      await admin.getByRole('dialog').getByRole('button', { name: 'Change root role' }).click()
      await admin.getByText('vera@example.com is now Editor; their sessions ended.').waitFor({ state: 'attached' })
      assert.equal((await call(pennon, 'GET', `/api/admin/user-admin/${veraId}`)).body.rootRole, 2)
      await admin.getByRole('button', { name: 'Reset link for vera@example.com' }).click()
      await admin.getByText('Password reset link for vera@example.com').waitFor()
      const resetLink = await admin.getByLabel('Link', { exact: true }).inputValue()
      assert.match(resetLink, new RegExp(`^${base}/#/reset-password\\?token=[0-9a-f]+$`))
      assert.notEqual(resetLink, inviteLink)
      // With the admin token gone, root@example.com is the last credential that can administer Pennon.
      assert.equal((await call(pennon, 'DELETE', '/api/admin/api-tokens/admin')).status, 200)
      await admin.getByRole('button', { name: 'Delete user root@example.com' }).click()
      const dialog = admin.getByRole('dialog')
      await dialog.getByText('This is you: once deleted, the console signs you out.').waitFor()
      await dialog.getByRole('button', { name: 'Delete user' }).click()
      await dialog.waitFor({ state: 'detached' })
      const refused = admin.getByRole('alert').filter({ hasText: 'last credential' })
      await refused.waitFor()
      assert.equal(
        await refused.innerText(),
        'User "root@example.com" is the last credential that can administer Pennon, so it cannot be deleted. Create another admin token, a token for an Admin service account, or an Admin user with a password first.',
      )
      const me = await fetch(`${base}/api/admin/me`, { headers: { cookie: adminCookie } })
      assert.deepEqual(await me.json(), {
        kind: 'user',
        name: 'root@example.com',
        id: rootId,
        session: true,
        rootRole: 'Admin',
        permissions: ['ADMIN'],
      })
    })

    await t.test('no script error and no CSP violation on any page', () => {
      assert.deepEqual(realProblems(problems), [])
    })
  })
})
