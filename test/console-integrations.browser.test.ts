/**
 * The console's integrations in a real browser (test/browser.ts), delivering to a real receiver in
 * its own process (test/webhook-receiver.ts): a webhook added in the console, a flag switched on in
 * the console, the one delivery it causes checked against the event log, the delivery log read and
 * a try sent again, an edit that leaves the secrets empty (kept: the next delivery carries the same
 * authorization), the switch that disables it, an Editor told the log is for admins, and a delete.
 * Each step is checked against the admin API too. CONSOLE_SCREENSHOTS=1 writes docs/console/integrations.png.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Page } from 'playwright-core'
import { heading, signIn, skip, startBrowserAndApp } from './browser.ts'
import { call, eventually, onEachDatabase, serviceAccountToken, type TestApp } from './test-app.ts'
import { startReceiver } from './webhook-receiver.ts'

// The receiver listens on 127.0.0.1, which integrations may reach only when allowed; a short poll
// keeps the test quick.
const env = { INTEGRATIONS_ALLOWED_HOSTS: '127.0.0.1', INTEGRATIONS_POLL_MS: '50' }
const ADDONS = '/api/admin/addons'
const AUTHORIZATION = 'Bearer console-hook-secret'
const FLAG = 'checkout'
/** Longer than many polls: what has not arrived by then is not coming. */
const SETTLE_MS = 600

async function ok(pennon: TestApp, method: 'GET' | 'POST', path: string, body?: unknown, status = 200): Promise<any> {
  const response = await call(pennon, method, path, body)
  assert.equal(response.status, status, response.text)
  return response.body
}

/** The newest event of a type, as `GET /api/admin/events` shows it. */
async function shownEvent(pennon: TestApp, type: string): Promise<Record<string, unknown>> {
  const { events } = await ok(pennon, 'GET', '/api/admin/events')
  const event = events.find((candidate: { type: string }) => candidate.type === type)
  assert.ok(event, `no ${type} event`)
  return event
}

onEachDatabase('console integrations in a browser', (database) => {
  test('a webhook added in the console delivers a switch made in the console; its log, a redelivery, an edit that keeps the secrets, disabling, deleting', {
    skip,
    timeout: 240_000,
  }, async (t) => {
    const receiver = await startReceiver()
    t.after(() => receiver.stop())
    const { pennon, base, browser } = await startBrowserAndApp(t, database, { env })
    const problems: string[] = []
    const watch = (page: Page) => {
      page.setDefaultTimeout(15_000)
      // A CSP violation, a failed module or a script error shows up here.
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(`console: ${message.text()}`)
      })
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`))
      return page
    }
    const newPage = async () =>
      watch(await (await browser.newContext({ viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' })).newPage())
    const page = await newPage()
    const shot = async (name: string) => {
      if (process.env.CONSOLE_SCREENSHOTS === '1' && database.name === 'sqlite')
        await page.screenshot({ path: `docs/console/${name}.png`, fullPage: true })
    }
    await ok(pennon, 'POST', '/api/admin/projects/default/features', { name: FLAG }, 201)
    await signIn(page, base, pennon.adminToken)
    let id = 0
    const flagSwitch = () => page.getByRole('switch', { name: `${FLAG} in production` })

    await t.test("add a webhook: a refused URL is shown beside its field, then it is added with the provider's fields", async () => {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Integrations' }).click()
      await heading(page, 'Integrations')
      await page.getByText('No integrations yet.').waitFor()
      await page.getByRole('link', { name: 'Add Webhook' }).click()
      await heading(page, 'New Webhook integration')
      // The fields are the provider's parameters, each with its description.
      assert.deepEqual(await page.locator('[data-parameter] label').allInnerTexts(), [
        'Webhook URL',
        'Content-Type',
        'Authorization',
        'Extra HTTP Headers',
        'Body template',
        'Signing secret',
      ])
      assert.equal(await page.getByLabel('Webhook URL').getAttribute('type'), 'password')
      assert.equal(await page.getByLabel('Webhook URL').getAttribute('aria-required'), 'true')
      await page.getByLabel('Description').fill('Tells the flag bot')
      await page.getByLabel('Webhook URL').fill('http://10.1.2.3/hook')
      await page.getByLabel('Authorization', { exact: true }).fill(AUTHORIZATION)
      await page.getByLabel('feature-environment-enabled', { exact: true }).check()
      await page.getByLabel('feature-environment-disabled', { exact: true }).check()
      await page.locator('[data-path="/body/projects"]').getByLabel('default', { exact: true }).check()
      await page.locator('[data-path="/body/environments"]').getByLabel('production', { exact: true }).check()
      await page.getByRole('button', { name: 'Add integration' }).click()
      const error = page.locator('[data-path="/body/parameters/url"] > .field-error')
      await error.waitFor()
      assert.equal(
        await error.innerText(),
        'The `url` parameter resolves to a non-public address (10.1.2.3); allow its host with INTEGRATIONS_ALLOWED_HOSTS.',
      )
      assert.equal(await page.getByLabel('Webhook URL').getAttribute('aria-invalid'), 'true')
      assert.deepEqual((await ok(pennon, 'GET', ADDONS)).addons, [])

      await page.getByLabel('Webhook URL').fill(`${receiver.url}/hook`)
      await page.getByRole('button', { name: 'Add integration' }).click()
      await heading(page, 'Integrations')
      const { addons } = await ok(pennon, 'GET', ADDONS)
      assert.equal(addons.length, 1)
      id = addons[0].id
      assert.deepEqual(addons, [
        {
          id,
          provider: 'webhook',
          description: 'Tells the flag bot',
          enabled: true,
          parameters: { url: '*****', authorization: '*****' },
          events: ['feature-environment-enabled', 'feature-environment-disabled'],
          projects: ['default'],
          environments: ['production'],
          createdAt: addons[0].createdAt,
        },
      ])
      const row = page.locator(`tr[data-integration="${id}"]`)
      assert.deepEqual(await row.locator('td').allInnerTexts(), [
        'On',
        'feature-environment-enabled\nfeature-environment-disabled',
        'default',
        'production',
        `Edit\nDelivery log\nDelete`,
      ])
    })

    let enabledEvent: Record<string, unknown> = {}
    await t.test(
      'switch the flag on in production in the console: the receiver gets exactly one delivery, the event as the API shows it',
      async () => {
        await page.goto(`${base}/#/projects/default/features/${FLAG}`)
        await heading(page, FLAG)
        await flagSwitch().click()
        await page.locator(`[role="switch"][aria-label="${FLAG} in production"][aria-checked="true"]`).waitFor()
        await eventually(async () => (await receiver.received()).length > 0, 'the delivery', 15_000)
        await sleep(SETTLE_MS)
        const received = await receiver.received()
        assert.equal(received.length, 1, 'exactly one delivery')
        enabledEvent = await shownEvent(pennon, 'feature-environment-enabled')
        assert.deepEqual(JSON.parse(received[0]!.body), enabledEvent)
        assert.deepEqual(
          [received[0]!.path, received[0]!.headers.authorization, received[0]!.headers['content-type'], received[0]!.headers['webhook-id']],
          ['/hook', AUTHORIZATION, 'application/json', `pennon-${id}-${enabledEvent.id}`],
        )
      },
    )

    await t.test('the delivery log shows the try as a success; Redeliver sends the event again and shows the new try', async () => {
      await page.goto(`${base}/#/integrations`)
      await heading(page, 'Integrations')
      await page.getByRole('link', { name: `Delivery log of Webhook #${id}` }).click()
      await heading(page, 'Delivery log')
      const rows = page.locator('tr[data-attempt]')
      await rows.first().waitFor()
      assert.equal(await rows.count(), 1)
      const cells = async (index: number) => (await rows.nth(index).locator('td').allInnerTexts()).slice(1)
      const tried = [
        'success',
        'Webhook request was successful with status code: 200.\nWhat was sent',
        `feature-environment-enabled ${FLAG} in production\n\nEvent #${enabledEvent.id}`,
        'Redeliver',
      ]
      assert.deepEqual(await cells(0), tried)
      assert.equal(await rows.first().locator('[data-state]').getAttribute('data-state'), 'success')

      await page
        .getByRole('button', { name: `Redeliver event ${enabledEvent.id}` })
        .first()
        .click()
      await page.getByText(`Event ${enabledEvent.id} sent again: success. Webhook request was successful with status code: 200.`).waitFor()
      assert.equal(await rows.count(), 2)
      assert.deepEqual([await cells(0), await cells(1)], [tried, tried])
      const received = await receiver.received()
      assert.deepEqual(
        received.map((delivery) => [delivery.body, delivery.headers['webhook-id']]),
        [0, 1].map(() => [received[0]!.body, `pennon-${id}-${enabledEvent.id}`]),
      )
      const log = (await ok(pennon, 'GET', `${ADDONS}/${id}/events`)).integrationEvents
      assert.deepEqual(
        log.map((attempt: Record<string, unknown>) => [attempt.state, attempt.event]),
        [
          ['success', enabledEvent],
          ['success', enabledEvent],
        ],
      )
    })

    await t.test(
      'edit the description, leaving the secrets empty: they are kept, and the next delivery carries the same authorization',
      async () => {
        await page.goto(`${base}/#/integrations/${id}`)
        await heading(page, `Webhook #${id}`)
        for (const secret of ['Webhook URL', 'Authorization']) {
          assert.equal(await page.getByLabel(secret, { exact: true }).inputValue(), '', `${secret} is not shown back`)
        }
        assert.deepEqual(
          await page.locator('[data-parameter]:has(.hint:text-matches("Stored; leave empty to keep.$")) .field > label').allInnerTexts(),
          ['Webhook URL', 'Authorization'],
        )
        // An optional secret can be removed; a required one only replaced.
        assert.deepEqual(await page.locator('[data-parameter] .check').allInnerTexts(), ['Remove the stored Authorization'])
        assert.equal(await page.getByLabel('feature-environment-enabled', { exact: true }).isChecked(), true)
        await page.getByLabel('Description').fill('Tells the flag bot and the on-call')
        await page.getByRole('button', { name: 'Save integration' }).click()
        await heading(page, 'Integrations')
        await page.getByText('Tells the flag bot and the on-call').waitFor()
        const addon = await ok(pennon, 'GET', `${ADDONS}/${id}`)
        assert.deepEqual(
          [addon.description, addon.enabled, addon.parameters, addon.events, addon.projects, addon.environments],
          [
            'Tells the flag bot and the on-call',
            true,
            { url: '*****', authorization: '*****' },
            ['feature-environment-enabled', 'feature-environment-disabled'],
            ['default'],
            ['production'],
          ],
        )
        await shot('integrations')

        await page.goto(`${base}/#/projects/default/features/${FLAG}`)
        await heading(page, FLAG)
        await flagSwitch().click()
        await page.locator(`[role="switch"][aria-label="${FLAG} in production"][aria-checked="false"]`).waitFor()
        await eventually(async () => (await receiver.received()).length === 3, 'the delivery after the edit', 15_000)
        const disabledEvent = await shownEvent(pennon, 'feature-environment-disabled')
        const delivery = (await receiver.received())[2]!
        assert.deepEqual(
          [delivery.path, delivery.headers.authorization, delivery.headers['webhook-id'], JSON.parse(delivery.body)],
          ['/hook', AUTHORIZATION, `pennon-${id}-${disabledEvent.id}`, disabledEvent],
        )
      },
    )

    await t.test('disable it with its switch: the API says so, its secrets are kept, and nothing more is sent', async () => {
      await page.goto(`${base}/#/integrations`)
      await heading(page, 'Integrations')
      await page.getByRole('switch', { name: `Webhook #${id} enabled` }).click()
      await page.locator(`[role="switch"][aria-label="Webhook #${id} enabled"][aria-checked="false"]`).waitFor()
      const addon = await ok(pennon, 'GET', `${ADDONS}/${id}`)
      assert.deepEqual(
        [addon.description, addon.enabled, addon.parameters],
        ['Tells the flag bot and the on-call', false, { url: '*****', authorization: '*****' }],
      )
      await ok(pennon, 'POST', `/api/admin/projects/default/features/${FLAG}/environments/production/on`)
      await sleep(SETTLE_MS)
      assert.equal((await receiver.received()).length, 3, 'nothing sent while disabled')
    })

    await t.test('an Editor finds the delivery log disabled, naming ADMIN, and its address says it is for admins', async () => {
      const editor = await newPage()
      const editorToken = await serviceAccountToken(pennon, 2)
      await signIn(editor, base, editorToken)
      await editor.goto(`${base}/#/integrations`)
      await heading(editor, 'Integrations')
      const logButton = editor.getByRole('button', { name: `Delivery log of Webhook #${id}` })
      assert.equal(await logButton.isDisabled(), true)
      assert.equal(await logButton.getAttribute('title'), 'You need the ADMIN permission')
      await editor.goto(`${base}/#/integrations/${id}/deliveries`)
      await heading(editor, 'Delivery log')
      assert.equal(
        await editor.locator('[data-forbidden]').innerText(),
        'Only admins can read the delivery log: it shows where events were sent and what was sent. Reading it needs ADMIN.',
      )
      assert.equal((await call(pennon, 'GET', `${ADDONS}/${id}/events`, undefined, { token: editorToken })).status, 403)
    })

    await t.test('on a phone (390 px) the list, the form and the delivery log scroll no page sideways', async () => {
      const phone = watch(
        await (
          await browser.newContext({ viewport: { width: 390, height: 844 }, reducedMotion: 'reduce', isMobile: true, hasTouch: true })
        ).newPage(),
      )
      await signIn(phone, base, pennon.adminToken)
      for (const [hash, title] of [
        ['#/integrations', 'Integrations'],
        [`#/integrations/${id}`, `Webhook #${id}`],
        [`#/integrations/${id}/deliveries`, 'Delivery log'],
        ['#/integrations/new/datadog', 'New Datadog integration'],
      ] as const) {
        await phone.goto(`${base}/${hash}`)
        await heading(phone, title)
        // A phone zooms out to show a page wider than itself, and its window grows with it.
        const widths = await phone.evaluate(() => [window.innerWidth, document.documentElement.scrollWidth])
        assert.deepEqual(widths, [390, 390], hash)
      }
    })

    await t.test('delete it: cancelled, it stays; confirmed, it is gone', async () => {
      const remove = page.getByRole('button', { name: `Delete Webhook #${id}` })
      await remove.click()
      await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click()
      await page.getByRole('dialog').waitFor({ state: 'detached' })
      assert.equal((await ok(pennon, 'GET', ADDONS)).addons.length, 1)
      await remove.click()
      await page.getByRole('dialog').getByRole('button', { name: 'Delete integration' }).click()
      await page.getByText('No integrations yet.').waitFor()
      assert.deepEqual((await ok(pennon, 'GET', ADDONS)).addons, [])
    })

    await t.test('no script error and no CSP violation on any page', () => {
      // The 4xx answers the journey provokes on purpose (a refused URL, the Editor's 403) are no problem.
      assert.deepEqual(
        problems.filter((problem) => !/Failed to load resource: the server responded with a status of 4\d\d/.test(problem)),
        [],
      )
    })
  })
})
