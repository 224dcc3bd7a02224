/**
 * Scheduling a change request in a real browser (test/browser.ts), in a time zone other than the
 * server's: the author schedules an approved request an hour ahead in their local time (the API
 * holds that instant), moves it to two seconds ahead, and the open page shows it Applied without
 * a reload, after which a real unleash-client sees the flag on. A schedule that fails (its
 * strategy deleted since) shows why, and its author cancels it. Also: a refusal links the caller's
 * draft there, and a flag's page links its change requests.
 * CONSOLE_SCREENSHOTS=1 writes docs/console/change-request-scheduled.png and
 * change-request-schedule-failed.png.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { heading, skip, startBrowserAndApp } from './browser.ts'
import { createFlag, projectPath } from './helpers/flags.ts'
import { addStrategy } from './helpers/strategies.ts'
import { asBrowser, createUser, PASSWORD, signIn as signInByApi } from './people.ts'
import { connectedSdk } from './sdk.ts'
import { call, eventually, onEachDatabase, serviceAccountToken, type TestApp } from './test-app.ts'

// The browser's zone: half an hour off any whole-hour offset, so a time read as UTC (or as the
// server's zone) would be caught.
const ZONE = 'Asia/Kolkata'
const CR = `${projectPath()}/change-requests`
// The scheduler looks every 100 ms, so a due request is applied well within the page's 1 s poll.
const FAST = { CHANGE_REQUEST_SCHEDULER_INTERVAL_MS: '100' }

/** A time as a `datetime-local` value in ZONE, to the second. */
function localInput(date: Date): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', {
      timeZone: ZONE,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(date)
      .map((part) => [part.type, part.value]),
  )
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}`
}

/** A whole second at least `ms` from now. */
const secondsAhead = (ms: number) => new Date(Math.ceil((Date.now() + ms) / 1000) * 1000)

/** Production needs one approval; `author` (an Editor, signed in through the API) and a reviewer's token. */
async function protectedProduction(pennon: TestApp) {
  const protect = await call(pennon, 'PUT', `${projectPath()}/environments/production/change-requests/config`, {
    changeRequestsEnabled: true,
    requiredApprovals: 1,
  })
  assert.equal(protect.status, 204, protect.text)
  await createUser(pennon, 'author@example.com', 2)
  const author = asBrowser(await signInByApi(pennon, 'author@example.com'))
  const reviewer = await serviceAccountToken(pennon, 2, 'reviewer')
  return { author, reviewer }
}

async function openPage(browser: Browser, base: string, problems: string[]): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 1000 }, timezoneId: ZONE })
  const page = await context.newPage()
  page.setDefaultTimeout(15_000)
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`))
  await page.goto(`${base}/`)
  await page.getByLabel('Email or username').fill('author@example.com')
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.locator('#nav:not([hidden])').waitFor()
  return page
}

onEachDatabase('console: scheduled change requests', (database) => {
  test('scheduled in the browser’s local time, moved to two seconds ahead: the open page shows it Applied and a real SDK sees the flag on', {
    skip,
    timeout: 180_000,
  }, async (t) => {
    const { pennon, base, browser } = await startBrowserAndApp(t, database, { env: FAST })
    const { author, reviewer } = await protectedProduction(pennon)
    await createFlag(pennon, 'checkout')
    const added = await call(
      pennon,
      'POST',
      `${projectPath()}/environments/production/change-requests`,
      { feature: 'checkout', action: 'updateEnabled', payload: { enabled: true } },
      author,
    )
    assert.equal(added.status, 200, added.text)
    const id: number = added.body.id
    assert.equal((await call(pennon, 'PUT', `${CR}/${id}/state`, { state: 'In review' }, author)).status, 200)
    assert.equal((await call(pennon, 'PUT', `${CR}/${id}/state`, { state: 'Approved' }, { token: reviewer })).status, 200)

    const clientToken = await call(pennon, 'POST', '/api/admin/api-tokens', {
      tokenName: 'checkout-client',
      type: 'client',
      environment: 'production',
      projects: ['*'],
    })
    assert.equal(clientToken.status, 201, clientToken.text)
    const sdk = await connectedSdk(t, {
      base,
      token: clientToken.body.secret,
      appName: 'checkout-shop',
      instanceId: 'checkout-1',
      metricsInterval: 60_000,
      refreshInterval: 250,
    })
    assert.equal(sdk.isEnabled('checkout'), false)

    const problems: string[] = []
    const page = await openPage(browser, base, problems)
    await page.goto(`${base}/#/projects/default/change-requests/${id}`)
    await heading(page, `Change request #${id}`)
    const state = (name: string) => page.locator(`[data-state-of="${id}"] [data-state="${name}"]`)
    await state('Approved').waitFor()

    // An hour ahead, in the browser's zone: the API holds that instant.
    const inAnHour = secondsAhead(60 * 60 * 1000)
    await page.getByLabel('Apply at').fill(localInput(inAnHour))
    await page.getByRole('button', { name: 'Schedule', exact: true }).click()
    await state('Scheduled').waitFor()
    await page.locator(`[data-schedule="pending"] time[datetime="${inAnHour.toISOString()}"]`).waitFor()
    const scheduled = await call(pennon, 'GET', `${CR}/${id}`)
    assert.deepEqual(scheduled.body.schedule, { scheduledAt: inAnHour.toISOString(), status: 'pending' })
    assert.equal(await page.getByRole('button', { name: 'Apply now' }).count(), 1)
    assert.equal(await page.getByRole('button', { name: 'Cancel request' }).count(), 1)
    if (process.env.CONSOLE_SCREENSHOTS === '1' && database.name === 'sqlite')
      await page.screenshot({ path: 'docs/console/change-request-scheduled.png', fullPage: true })

    // While the tab is hidden the page does not read the request; shown again, it reads it at once.
    const reads: number[] = []
    page.on('request', (request) => {
      if (request.method() === 'GET' && new URL(request.url()).pathname === `${CR}/${id}`) reads.push(Date.now())
    })
    const setVisibility = (visibility: 'hidden' | 'visible') =>
      page.evaluate((visibility) => {
        Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => visibility })
        document.dispatchEvent(new Event('visibilitychange'))
      }, visibility)
    await eventually(() => reads.length > 0, 'the page polls the scheduled request')
    await setVisibility('hidden')
    await new Promise((resolve) => setTimeout(resolve, 300))
    const hiddenSince = Date.now()
    await new Promise((resolve) => setTimeout(resolve, 2500))
    assert.deepEqual(
      reads.filter((at) => at >= hiddenSince),
      [],
      'no read while hidden',
    )
    const shownAt = Date.now()
    await setVisibility('visible')
    await eventually(() => reads.some((at) => at >= shownAt), 'a read once shown')
    assert.ok(reads.find((at) => at >= shownAt)! - shownAt < 900, 'read at once, not a poll later')

    // Moved to two seconds ahead; the page is not reloaded (a reload would drop the mark).
    await page.evaluate(() => {
      ;(window as unknown as { stillThisPage: boolean }).stillThisPage = true
    })
    const soon = secondsAhead(2000)
    await page.getByLabel('Apply at').fill(localInput(soon))
    await page.getByRole('button', { name: 'Move the schedule' }).click()
    await page.locator(`[data-schedule="pending"] time[datetime="${soon.toISOString()}"]`).waitFor()
    // The functional deadline: due in about 2 s, applied within the scheduler's 100 ms, seen within the page's 1 s poll.
    await state('Applied').waitFor({ timeout: 10_000 })
    assert.equal(await page.evaluate(() => (window as unknown as { stillThisPage?: boolean }).stillThisPage), true)
    assert.equal(await page.locator('[data-schedule]').count(), 0)
    assert.equal(await page.locator('[data-schedule-form]').count(), 0)

    const applied = await call(pennon, 'GET', `${CR}/${id}`)
    assert.equal(applied.body.state, 'Applied')
    assert.ok(Date.parse(applied.body.stateTimestamps.Applied) >= soon.getTime(), applied.text)
    await eventually(() => sdk.isEnabled('checkout'), 'the SDK sees checkout on')
    // Stopped before the app closes (its hook runs first): a poll meanwhile would find the port
    // closed, and the SDK leaves that refusal unhandled.
    sdk.destroy()
    const features = await call(pennon, 'GET', '/api/client/features', undefined, { token: clientToken.body.secret })
    assert.equal(features.body.features.find((flag: { name: string }) => flag.name === 'checkout').enabled, true)
    assert.deepEqual(problems, [])
  })

  test('a refusal links the draft; a flag lists its requests; a schedule that fails says why and its author cancels it', {
    skip,
    timeout: 180_000,
  }, async (t) => {
    const { pennon, base, browser } = await startBrowserAndApp(t, database, { env: FAST })
    const { author, reviewer } = await protectedProduction(pennon)
    await createFlag(pennon, 'checkout')
    await createFlag(pennon, 'search')
    const strategy = await addStrategy(pennon, 'checkout', 'production', {
      name: 'flexibleRollout',
      parameters: { rollout: '50', stickiness: 'default', groupId: 'checkout' },
    })
    const added = await call(
      pennon,
      'POST',
      `${projectPath()}/environments/production/change-requests`,
      {
        feature: 'checkout',
        action: 'updateStrategy',
        payload: { id: strategy.id, name: 'flexibleRollout', parameters: { rollout: '100', stickiness: 'default', groupId: 'checkout' } },
      },
      author,
    )
    assert.equal(added.status, 200, added.text)
    const id: number = added.body.id
    const problems: string[] = []
    const page = await openPage(browser, base, problems)

    // The switch is refused; the refusal links the draft the author already has in production.
    await page.goto(`${base}/#/projects/default/features/checkout`)
    await heading(page, 'checkout')
    await page.getByRole('switch', { name: 'checkout in production' }).click()
    const offer = page.locator('[data-change-request-offer="production"]')
    await offer.getByText('changes there need a change request').waitFor()
    const draftLink = offer.getByRole('link', { name: `Your draft, change request #${id}` })
    await draftLink.waitFor()
    assert.equal(await draftLink.getAttribute('href'), `#/projects/default/change-requests/${id}`)
    await offer.getByRole('button', { name: 'Add to a change request' }).click()
    await page.getByRole('link', { name: `Open change request #${id}` }).waitFor()

    // The flag's change requests: this one, not another flag's (the reviewer's, in review).
    const other = await call(
      pennon,
      'POST',
      `${projectPath()}/environments/production/change-requests`,
      { feature: 'search', action: 'updateEnabled', payload: { enabled: true } },
      { token: reviewer },
    )
    assert.equal(other.status, 200, other.text)
    assert.equal((await call(pennon, 'PUT', `${CR}/${other.body.id}/state`, { state: 'In review' }, { token: reviewer })).status, 200)
    await page.getByRole('link', { name: 'Change requests', exact: true }).click()
    await heading(page, 'Change requests of checkout')
    const rows = page.locator('[data-change-requests="checkout"] tbody tr')
    await rows.first().waitFor()
    assert.deepEqual(await rows.evaluateAll((all) => all.map((row) => row.getAttribute('data-change-request'))), [String(id)])
    assert.match((await rows.first().textContent()) ?? '', /Draft.*production.*checkout.*author@example\.com/)

    // Sent to review in the page, approved by the reviewer, its strategy then deleted by an Admin.
    await rows.first().getByRole('link').click()
    await heading(page, `Change request #${id}`)
    await page.getByRole('button', { name: 'Send to review' }).click()
    await page.locator(`[data-state-of="${id}"] [data-state="In review"]`).waitFor()
    assert.equal((await call(pennon, 'PUT', `${CR}/${id}/state`, { state: 'Approved' }, { token: reviewer })).status, 200)
    const deleted = await call(pennon, 'DELETE', `${projectPath()}/features/checkout/environments/production/strategies/${strategy.id}`)
    assert.equal(deleted.status, 200, deleted.text)
    await page.reload()
    await heading(page, `Change request #${id}`)
    await page.locator(`[data-state-of="${id}"] [data-state="Approved"]`).waitFor()

    // A time in the past is the server's 400, shown at the field.
    await page.getByLabel('Apply at').fill(localInput(new Date(Date.now() - 60_000)))
    await page.getByRole('button', { name: 'Schedule', exact: true }).click()
    await page.locator('[data-path="/body/scheduledAt"] .field-error:not([hidden])').waitFor()
    assert.equal(await page.getByLabel('Apply at').getAttribute('aria-invalid'), 'true')

    const soon = secondsAhead(2000)
    await page.getByLabel('Apply at').fill(localInput(soon))
    await page.getByRole('button', { name: 'Schedule', exact: true }).click()
    await page.locator(`[data-schedule="pending"] time[datetime="${soon.toISOString()}"]`).waitFor()
    const failure = page.locator('[data-schedule="failed"]')
    await failure.waitFor({ timeout: 10_000 })
    const failed = await call(pennon, 'GET', `${CR}/${id}`)
    assert.equal(failed.body.state, 'Scheduled')
    assert.equal(failed.body.schedule.status, 'failed')
    assert.match(failed.body.schedule.reason, /^Change request \d+ cannot be applied: /)
    assert.equal(await failure.locator('[data-schedule-reason]').textContent(), failed.body.schedule.reason)
    await failure.getByText('The schedule failed:').waitFor()
    assert.equal(await page.getByRole('button', { name: 'Move the schedule' }).count(), 1)
    if (process.env.CONSOLE_SCREENSHOTS === '1' && database.name === 'sqlite')
      await page.screenshot({ path: 'docs/console/change-request-schedule-failed.png', fullPage: true })

    await page.getByRole('button', { name: 'Cancel request' }).click()
    await page.locator(`[data-state-of="${id}"] [data-state="Cancelled"]`).waitFor()
    assert.equal((await call(pennon, 'GET', `${CR}/${id}`)).body.state, 'Cancelled')
    assert.equal(await page.locator('[data-schedule-form]').count(), 0)
    assert.deepEqual(problems, [])
  })
})
