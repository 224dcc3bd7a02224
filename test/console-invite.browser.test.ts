/**
 * Signing up with an invite link in a real browser (test/browser.ts): an admin makes a link
 * through the API; someone opens it, signs up, and signs in. A link turned off shows why it fails.
 * With an SMTP server, a user the console creates is emailed the invite, and the console says so;
 * someone who forgot their password asks for a link on the sign-in page and sets a new one.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { heading, skip, startBrowserAndApp } from './browser.ts'
import { createUser, PASSWORD as ADMIN_PASSWORD } from './people.ts'
import { SMTP_PASSWORD, SMTP_USER, startSmtpReceiver } from './smtp-receiver.ts'
import { call, onEachDatabase } from './test-app.ts'

const PASSWORD = 'Joins-Via-Link-9!'

onEachDatabase('console: invite links', (database) => {
  test('the link opens the sign-up page; the new Viewer signs in; a disabled link is refused', { skip, timeout: 120_000 }, async (t) => {
    const { pennon, base, browser } = await startBrowserAndApp(t, database, { env: {} })
    const created = await call(pennon, 'POST', '/api/admin/invite-link/tokens', {
      name: 'Browser',
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    })
    assert.equal(created.status, 201, created.text)
    const url = String(created.body.url).replace(/^http:\/\/[^/]+/, base)
    const page = await (await browser.newContext()).newPage()
    page.setDefaultTimeout(15_000)
    const errors: string[] = []
    page.on('pageerror', (error) => errors.push(error.message))

    await page.goto(url)
    await page.getByRole('heading', { name: 'Join Pennon' }).waitFor()
    await page.getByLabel('Email').fill('joiner@example.com')
    await page.getByLabel('Name').fill('Joiner')
    await page.getByLabel('Password', { exact: true }).fill('weak')
    await page.getByLabel('Repeat the password').fill('weak')
    await page.getByRole('button', { name: 'Sign up' }).click()
    await page.getByText('The password does not meet the rules:').waitFor()
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
    await page.getByLabel('Repeat the password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Sign up' }).click()
    await page.getByText('Your account is made: sign in with it.').waitFor()
    assert.equal(page.url(), `${base}/#/projects`)
    assert.equal(await page.getByLabel('Email or username').inputValue(), 'joiner@example.com')
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await heading(page, 'Projects')

    assert.equal((await call(pennon, 'PUT', `/api/admin/invite-link/tokens/${created.body.secret}`, { enabled: false })).status, 200)
    const other = await (await browser.newContext()).newPage()
    await other.goto(url)
    await other.getByText('This invite link is unknown, disabled or expired').waitFor()
    assert.deepEqual(errors, [])
  })

  test('with SMTP set up, the console says the invite was emailed, and it was', { skip, timeout: 120_000 }, async (t) => {
    const smtp = await startSmtpReceiver()
    t.after(() => smtp.stop())
    const env = { EMAIL_HOST: '127.0.0.1', EMAIL_PORT: String(smtp.port), EMAIL_USER: SMTP_USER, EMAIL_PASSWORD: SMTP_PASSWORD }
    const { pennon, base, browser } = await startBrowserAndApp(t, database, { env })
    await createUser(pennon, 'root@example.com', 1, { sendEmail: false })
    const page = await (await browser.newContext()).newPage()
    page.setDefaultTimeout(15_000)
    await page.goto(`${base}/`)
    await page.getByLabel('Email or username').fill('root@example.com')
    await page.getByLabel('Password', { exact: true }).fill(ADMIN_PASSWORD)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.locator('#nav:not([hidden])').waitFor()
    await page.goto(`${base}/#/users`)
    await heading(page, 'Users')
    await page.getByLabel('Email').fill('mailed@example.com')
    await page.getByRole('button', { name: 'Create user' }).click()
    await page.getByText('An email with this link went to mailed@example.com', { exact: false }).waitFor()
    const link = await page.getByLabel('Link', { exact: true }).inputValue()
    const mail = await smtp.waitForMail(0)
    assert.equal(mail.to, 'mailed@example.com')
    assert.ok(mail.text.includes(link), 'the link shown is the link mailed')
  })

  test('"Forgot your password?" on the sign-in page emails a link that sets a new one', { skip, timeout: 120_000 }, async (t) => {
    const smtp = await startSmtpReceiver()
    t.after(() => smtp.stop())
    const { pennon, base, browser } = await startBrowserAndApp(t, database, {
      env: { EMAIL_HOST: '127.0.0.1', EMAIL_PORT: String(smtp.port) },
    })
    await createUser(pennon, 'forgetful@example.com', 2, { sendEmail: false })
    const page = await (await browser.newContext()).newPage()
    page.setDefaultTimeout(15_000)
    await page.goto(`${base}/`)
    await page.getByLabel('Email or username').fill('forgetful@example.com')
    await page.getByText('Forgot your password?').click()
    assert.equal(await page.getByLabel('Your email').inputValue(), 'forgetful@example.com', 'taken from the field above')
    await page.getByRole('button', { name: 'Email me a link' }).click()
    await page.getByText('If forgetful@example.com has an account', { exact: false }).waitFor()
    const mail = await smtp.waitForMail(0)
    assert.equal(mail.to, 'forgetful@example.com')
    const link = mail.text.match(/http:\/\/\S+/)?.[0]
    assert.ok(link, mail.text)
    await page.goto(link)
    await page.getByRole('heading', { name: 'Set your password' }).waitFor()
    await page.getByLabel('New password', { exact: true }).fill(PASSWORD)
    await page.getByLabel('Repeat the password', { exact: true }).fill(PASSWORD)
    await page.getByRole('button', { name: 'Set password' }).click()
    await page.getByText('Your password is set: sign in with it.').waitFor()
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await heading(page, 'Projects')
  })
})
