/**
 * The console's searched lists in a real browser (test/browser.ts): every project's flags through
 * the flag search (10,000 of them, a page at a time; filters, search, sort, the address keeping it
 * all across a reload), the event log through the event search (pages and filters), and a flag's
 * links added, edited and deleted. Each step is checked against the admin API too.
 * CONSOLE_SCREENSHOTS=1 writes docs/console/ pictures of them.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Page } from 'playwright-core'
import { heading, signIn, skip, startBrowserAndApp } from './browser.ts'
import { call, onEachDatabase, serviceAccountToken, type TestApp } from './test-app.ts'

const BIG = 10_000

async function ok(pennon: TestApp, method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown, status = 200): Promise<any> {
  const response = await call(pennon, method, path, body)
  assert.equal(response.status, status, response.text)
  return response.body
}

/** Flags written straight to the table, in batches (the API would take minutes); every seventh stale, every third an experiment. */
async function insertFlags(pennon: TestApp, project: string, count: number): Promise<void> {
  const createdAt = new Date(Date.UTC(2026, 0, 1)).toISOString()
  for (let start = 0; start < count; start += 500) {
    const rows = Array.from({ length: Math.min(500, count - start) }, (_, i) => ({
      name: `flag-${String(start + i).padStart(5, '0')}`,
      project,
      description: null,
      type: (start + i) % 3 === 0 ? 'experiment' : 'release',
      stale: (start + i) % 7 === 0,
      impression_data: false,
      created_at: createdAt,
      archived_at: null,
    }))
    await pennon.database.db.insertInto('features').values(rows).execute()
  }
}

onEachDatabase('console search pages in a browser', (database) => {
  test('all flags paged, filtered and kept in the address; the event log searched; a flag’s links', {
    skip,
    timeout: 300_000,
  }, async (t) => {
    const { pennon, base, browser } = await startBrowserAndApp(t, database)
    const problems: string[] = []
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' })
    const page: Page = await context.newPage()
    page.setDefaultTimeout(15_000)
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`)
    })
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`))
    const shot = async (name: string) => {
      if (process.env.CONSOLE_SCREENSHOTS === '1' && database.name === 'sqlite')
        await page.screenshot({ path: `docs/console/${name}.png`, fullPage: true })
    }
    await signIn(page, base, pennon.adminToken)
    const flags = '/api/admin/projects/default/features'

    await t.test(
      `all flags: ${BIG.toLocaleString('en')} paged by the server, filtered, searched, sorted, kept across a reload`,
      async () => {
        await ok(pennon, 'POST', '/api/admin/projects', { id: 'big', name: 'Big' }, 201)
        await insertFlags(pennon, 'big', BIG)
        await ok(pennon, 'POST', flags, { name: 'checkout', type: 'release' }, 201)
        await ok(pennon, 'POST', '/api/admin/features/checkout/tags', { type: 'simple', value: 'payments' }, 201)
        await ok(pennon, 'POST', flags, { name: 'old-banner', type: 'experiment' }, 201)
        await ok(pennon, 'POST', '/api/admin/projects/default/stale', { features: ['old-banner'], stale: true }, 202)
        const total = BIG + 2

        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Flags' }).click()
        await heading(page, 'Flags')
        await page.getByText(`1–50 of ${total.toLocaleString('en')} flags`).waitFor()
        assert.equal(await page.locator('table.flags tbody tr').count(), 50)
        const timings: Array<{ fetch: number; render: number; total: number }> = []
        const measure = async (action: () => Promise<unknown>) => {
          const loaded = await page.locator('.results').getAttribute('data-loaded')
          const started = Date.now()
          await action()
          await page.locator(`.results:not([data-loaded="${loaded}"])`).waitFor()
          const [fetch, render] = await page.evaluate(() =>
            ['pennon:flag-search-fetch', 'pennon:flag-search-render'].map((name) => performance.getEntriesByName(name).at(-1)!.duration),
          )
          timings.push({ fetch: Math.round(fetch!), render: Math.round(render!), total: Date.now() - started })
        }

        // Paging: the next page, and the address keeps it across a reload.
        await measure(() => page.getByRole('button', { name: 'Next' }).click())
        await page.getByText(`51–100 of ${total.toLocaleString('en')} flags`).waitFor()
        assert.match(page.url(), /#\/flags\?page=1$/)
        await page.reload()
        await heading(page, 'Flags')
        await page.getByText(`51–100 of ${total.toLocaleString('en')} flags`).waitFor()
        await page.getByText(`Page 2 of ${Math.ceil(total / 50)}`).waitFor()
        await measure(() => page.getByRole('button', { name: 'Previous' }).click())
        await page.getByText(`1–50 of ${total.toLocaleString('en')} flags`).waitFor()

        // Filters: a project, a type, a state; each one the server's count.
        await measure(() => page.getByLabel('Project').selectOption('big'))
        await page.getByText(`1–50 of ${BIG.toLocaleString('en')} flags`).waitFor()
        await measure(() => page.getByLabel('Type').selectOption('experiment'))
        const experiments = Math.ceil(BIG / 3)
        await page.getByText(`1–50 of ${experiments.toLocaleString('en')} flags`).waitFor()
        await measure(() => page.getByLabel('State').selectOption('stale'))
        // Stale experiments: the numbers divisible by 21.
        const staleExperiments = Math.ceil(BIG / 21)
        await page.getByText(`1–50 of ${staleExperiments} flags`).waitFor()
        await measure(() => page.getByRole('button', { name: 'Next' }).click())
        await page.getByText(`51–100 of ${staleExperiments} flags`).waitFor()
        const search = await ok(pennon, 'GET', '/api/admin/search/features?project=IS:big&type=IS:experiment&state=IS:stale&limit=1')
        assert.equal(search.total, staleExperiments)
        // The address says it all: a reload shows the same filters and page.
        assert.match(page.url(), /project=big/)
        await page.reload()
        await heading(page, 'Flags')
        await page.getByText(`51–100 of ${staleExperiments} flags`).waitFor()
        assert.equal(await page.getByLabel('Project').inputValue(), 'big')
        assert.equal(await page.getByLabel('Type').inputValue(), 'experiment')
        assert.equal(await page.getByLabel('State').inputValue(), 'stale')
        await shot('all-flags')

        // Search by text (typed, sent once typing pauses), then sorted.
        await page.getByLabel('State').selectOption('')
        await page.getByLabel('Type').selectOption('')
        await page.getByText(`1–50 of ${BIG.toLocaleString('en')} flags`).waitFor()
        await measure(() => page.getByLabel('Search flags').pressSequentially('flag-0999', { delay: 20 }))
        await page.getByText('1–10 of 10 flags').waitFor()
        await measure(() => page.getByRole('button', { name: 'Name' }).click())
        assert.equal(await page.locator('table.flags tbody tr').first().getByRole('link').first().innerText(), 'flag-09999')
        assert.match(page.url(), /query=flag-0999/)
        assert.match(page.url(), /sortOrder=desc/)

        // A tag, across projects; and the creation date sorts.
        await page.getByLabel('Search flags').fill('')
        await page.getByLabel('Project').selectOption('')
        await page.getByText(`1–50 of ${total.toLocaleString('en')} flags`).waitFor()
        await measure(() => page.getByLabel('Tag').selectOption('simple:payments'))
        await page.getByText('1–1 of 1 flag').waitFor()
        await page.getByRole('link', { name: 'checkout', exact: true }).waitFor()
        await page.getByLabel('Tag').selectOption('')
        await page.getByText(`1–50 of ${total.toLocaleString('en')} flags`).waitFor()
        await measure(() => page.getByRole('button', { name: 'Created' }).click())
        await measure(() => page.getByRole('button', { name: 'Created' }).click())
        // Newest first: the two made through the API after the 10,000.
        const firstTwo = await page.locator('table.flags tbody tr th a').evaluateAll((links) => links.slice(0, 2).map((a) => a.textContent))
        assert.deepEqual(firstTwo.sort(), ['checkout', 'old-banner'])
        // Last seen: the one flag an SDK reported comes first, its time shown.
        const seenAt = new Date().toISOString()
        await pennon.database.db
          .insertInto('last_seen_at_metrics')
          .values({ feature_name: 'checkout', environment: 'production', last_seen_at: seenAt })
          .execute()
        await measure(() => page.getByRole('button', { name: 'Last seen' }).click())
        const top = page.locator('table.flags tbody tr').first()
        assert.equal(await top.locator('th a').first().innerText(), 'checkout')
        assert.notEqual(await top.locator('td').last().innerText(), '–')
        assert.match(page.url(), /sortBy=lastSeenAt/)
        t.diagnostic(
          `pages of ${total} flags [${database.name}] (fetch / render / action to rendered, ms): ${timings.map((x) => `${x.fetch}/${x.render}/${x.total}`).join(', ')}`,
        )
        // Only the page asked for is in the document.
        assert.equal(await page.locator('table.flags tbody tr').count(), 50)

        // A project's page leads here with the project chosen.
        await page.goto(`${base}/#/projects/big`)
        await heading(page, 'Project big')
        await page.getByRole('link', { name: 'Search all flags' }).click()
        await heading(page, 'Flags')
        await page.getByText(`1–50 of ${BIG.toLocaleString('en')} flags`).waitFor()
        assert.equal(await page.getByLabel('Project').inputValue(), 'big')
      },
    )

    await t.test(
      'the event log: pages of the event search, filtered by project, type, flag, person and dates, kept across a reload',
      async () => {
        await ok(pennon, 'POST', '/api/admin/projects', { id: 'shop', name: 'Shop' }, 201)
        for (let i = 0; i < 55; i += 1) await ok(pennon, 'POST', '/api/admin/projects/shop/features', { name: `shop-${i}` }, 201)
        // Someone else: a service account's token makes two flags.
        const editor = await serviceAccountToken(pennon, 2, 'release-bot')
        for (const name of ['bot-one', 'bot-two']) {
          const made = await call(pennon, 'POST', flags, { name }, { token: editor })
          assert.equal(made.status, 201, made.text)
        }
        const count = async (filters: string) => (await ok(pennon, 'GET', `/api/admin/search/events?limit=1&${filters}`)).total as number
        const all = await count('')
        assert.ok(all > 50, `${all} events: more than a page`)

        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Event log' }).click()
        await heading(page, 'Event log')
        await page.getByText(`1–50 of ${all.toLocaleString('en')} events`).waitFor()
        assert.equal(await page.locator('ol.events > li.event').count(), 50)
        await page.getByRole('button', { name: 'Next' }).click()
        await page.getByText(`51–${Math.min(100, all)} of ${all.toLocaleString('en')} events`).waitFor()
        await page.getByText('Live on the first page').waitFor()
        assert.match(page.url(), /#\/events\?page=1$/)
        await page.getByRole('button', { name: 'Previous' }).click()
        await page.getByText(`1–50 of ${all.toLocaleString('en')} events`).waitFor()

        // A project, then a type within it.
        await page.getByLabel('Project').selectOption('shop')
        const shop = await count('project=IS:shop')
        assert.equal(shop, 56, 'the project and its 55 flags')
        await page.getByText(`1–50 of ${shop} events`).waitFor()
        await page.getByLabel('Event type').fill('project-created')
        await page.getByText('1–1 of 1 event').waitFor()
        assert.equal(await page.locator('ol.events > li.event').getAttribute('data-event-type'), 'project-created')
        await page.getByLabel('Event type').fill('feature-created')
        await page.getByText(`1–50 of 55 events`).waitFor()
        await page.getByRole('button', { name: 'Next' }).click()
        await page.getByText('51–55 of 55 events').waitFor()
        // The address holds the filters and the page: a reload shows the same five.
        await page.reload()
        await heading(page, 'Event log')
        await page.getByText('51–55 of 55 events').waitFor()
        assert.equal(await page.getByLabel('Project').inputValue(), 'shop')
        assert.equal(await page.getByLabel('Event type').inputValue(), 'feature-created')
        assert.deepEqual(await page.locator('ol.events > li.event a').allInnerTexts(), ['shop-4', 'shop-3', 'shop-2', 'shop-1', 'shop-0'])

        // A person: the service account's events only.
        await page.getByLabel('Project').selectOption('')
        await page.getByLabel('Event type').fill('')
        await page.getByText(`1–50 of ${all.toLocaleString('en')} events`).waitFor()
        const creators = (await ok(pennon, 'GET', '/api/admin/event-creators')) as Array<{ id: number; name: string }>
        const bot = creators.find((creator) => creator.name === 'release-bot')
        assert.ok(bot, JSON.stringify(creators))
        await page.getByLabel('Person').selectOption({ label: 'release-bot' })
        const bots = await count(`createdBy=IS:${bot.id}`)
        await page.getByText(`1–${bots} of ${bots} events`).waitFor()
        assert.deepEqual((await page.locator('ol.events > li.event a').allInnerTexts()).sort(), ['bot-one', 'bot-two'])
        assert.match(page.url(), new RegExp(`createdBy=${bot.id}`))
        // Back on a first page (a filter changed): live again.
        await page.locator('.live', { hasText: /^Live$/ }).waitFor()
        await shot('event-search')

        // A flag, by its name.
        await page.getByLabel('Person').selectOption('')
        await page.getByLabel('Flag').fill('checkout')
        const checkout = await count('feature=IS:checkout')
        await page.getByText(`1–${checkout} of ${checkout} event${checkout === 1 ? '' : 's'}`).waitFor()
        assert.deepEqual(
          await page.locator('ol.events > li.event').evaluateAll((items) => items.map((item) => item.getAttribute('data-event-type'))),
          ['feature-tagged', 'feature-created'],
        )

        // Dates (UTC days): everything happened today; nothing from tomorrow on, nothing up to yesterday.
        const today = new Date().toISOString().slice(0, 10)
        const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)
        const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10)
        await page.getByLabel('Flag').fill('')
        await page.getByText(`1–50 of ${all.toLocaleString('en')} events`).waitFor()
        await page.getByLabel('From').fill(tomorrow)
        await page.getByText('No event matches these filters.').waitFor()
        await page.getByLabel('From').fill(today)
        await page.getByText(`1–50 of ${all.toLocaleString('en')} events`).waitFor()
        await page.getByLabel('To').fill(yesterday)
        await page.getByText('No event matches these filters.').waitFor()
        assert.match(page.url(), new RegExp(`from=${today}&to=${yesterday}`))
        await page.getByLabel('From').fill('')
        await page.getByLabel('To').fill('')
        await page.getByText(`1–50 of ${all.toLocaleString('en')} events`).waitFor()
      },
    )

    await t.test("a project's log and a flag's history are the same search, scoped", async () => {
      await page.goto(`${base}/#/projects/shop/events`)
      await heading(page, 'Events of shop')
      await page.getByText('1–50 of 56 events').waitFor()
      assert.equal(await page.getByLabel('Project').count(), 0)
      await page.goto(`${base}/#/projects/default/features/checkout/events`)
      await heading(page, 'History of checkout')
      await page.getByText('1–2 of 2 events').waitFor()
      await page.getByLabel('Event type').fill('feature-tagged')
      await page.getByText('1–1 of 1 event').waitFor()
    })

    await t.test(
      "a flag's links: added (a bad address refused beside its field), opened in a new tab, edited, deleted; a Viewer may not",
      async () => {
        const read = async () =>
          ((await ok(pennon, 'GET', `${flags}/checkout`)).links as Array<{ url: string; title: string | null }>).map(({ url, title }) => ({
            url,
            title,
          }))
        await page.goto(`${base}/#/projects/default/features/checkout`)
        await heading(page, 'checkout')
        const links = page.getByRole('region', { name: 'Links' })
        await links.getByText('No links.').waitFor()

        await links.getByLabel('Link address').fill('ftp://files.example.com/spec')
        await links.getByRole('button', { name: 'Add link' }).click()
        await links.getByText(/The `\/body\/url` property must be an http or https address/).waitFor()
        assert.deepEqual(await read(), [])

        // A link to this very server, so that opening it works on a closed network.
        const ticket = `${base}/#/projects`
        await links.getByLabel('Link address').fill(ticket)
        await links.getByLabel('Link title').fill('PEN-1')
        await links.getByRole('button', { name: 'Add link' }).click()
        const anchor = links.getByRole('link', { name: 'PEN-1' })
        await anchor.waitFor()
        assert.equal(await anchor.getAttribute('href'), ticket)
        assert.equal(await anchor.getAttribute('target'), '_blank')
        assert.match((await anchor.getAttribute('rel')) ?? '', /\bnoopener\b/)
        await links.getByLabel('Link address').fill('example.com/dashboards/checkout')
        await links.getByLabel('Link title').fill('')
        await links.getByRole('button', { name: 'Add link' }).click()
        // Without a scheme the server takes https; without a title the address is the link's name.
        await links.getByRole('link', { name: 'https://example.com/dashboards/checkout' }).waitFor()
        assert.deepEqual(await read(), [
          { url: ticket, title: 'PEN-1' },
          { url: 'https://example.com/dashboards/checkout', title: null },
        ])

        // It opens in a new tab, which cannot reach back into the console.
        const [opened] = await Promise.all([page.context().waitForEvent('page'), anchor.click()])
        await opened.waitForLoadState()
        assert.equal(opened.url(), ticket)
        assert.equal(await opened.evaluate(() => window.opener), null)
        await opened.close()

        await links.getByRole('button', { name: 'Edit link PEN-1' }).click()
        const dialog = page.getByRole('dialog')
        await dialog.getByLabel('Link address').fill('https://tickets.example.com/PEN-2')
        await dialog.getByLabel('Link title').fill('x'.repeat(1001))
        await dialog.getByRole('button', { name: 'Save link' }).click()
        await dialog.getByText(/The `\/body\/title` property must be at most 1000 characters long/).waitFor()
        await dialog.getByLabel('Link title').fill('PEN-2')
        await dialog.getByRole('button', { name: 'Save link' }).click()
        await dialog.waitFor({ state: 'detached' })
        await links.getByRole('link', { name: 'PEN-2' }).waitFor()
        assert.deepEqual(await read(), [
          { url: 'https://tickets.example.com/PEN-2', title: 'PEN-2' },
          { url: 'https://example.com/dashboards/checkout', title: null },
        ])

        await links.getByRole('button', { name: 'Delete link https://example.com/dashboards/checkout' }).click()
        await dialog.getByRole('button', { name: 'Delete link' }).click()
        await dialog.waitFor({ state: 'detached' })
        await links.getByRole('link', { name: 'https://example.com/dashboards/checkout' }).waitFor({ state: 'detached' })
        assert.deepEqual(await read(), [{ url: 'https://tickets.example.com/PEN-2', title: 'PEN-2' }])
        await shot('flag-links')
        const kinds = (
          await ok(
            pennon,
            'GET',
            '/api/admin/search/events?feature=IS:checkout&type=IS_ANY_OF:feature-link-added,feature-link-updated,feature-link-removed',
          )
        ).events.map((event: { type: string }) => event.type)
        assert.deepEqual(kinds, ['feature-link-removed', 'feature-link-updated', 'feature-link-added', 'feature-link-added'])

        // A Viewer sees the links, and the controls disabled, naming the permission.
        const viewer = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage()
        viewer.setDefaultTimeout(15_000)
        await signIn(viewer, base, await serviceAccountToken(pennon, 3, 'reader'))
        await viewer.goto(`${base}/#/projects/default/features/checkout`)
        await heading(viewer, 'checkout')
        const seen = viewer.getByRole('region', { name: 'Links' })
        await seen.getByRole('link', { name: 'PEN-2' }).waitFor()
        assert.equal(await seen.getByRole('button', { name: 'Add link' }).isDisabled(), true)
        assert.equal(await seen.getByRole('button', { name: 'Edit link PEN-2' }).isDisabled(), true)
        assert.equal(await seen.getByRole('button', { name: 'Delete link PEN-2' }).isDisabled(), true)
        await seen.getByText('Needs UPDATE_FEATURE').first().waitFor()
      },
    )

    await t.test('no script error or CSP violation', () => {
      // Refusals the pages show (the sign-in's first question, is there a session?, answered 401;
      // a bad link's 400) are logged by the browser as failed loads; nothing else may be.
      assert.deepEqual(
        problems.filter((problem) => !/Failed to load resource: the server responded with a status of 4\d\d/.test(problem)),
        [],
      )
    })
  })
})
