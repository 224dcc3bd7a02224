/**
 * The console's insight pages in a real browser (test/browser.ts): the playground's explanations
 * for a context that fails a constraint and one that passes; a real unleash-client's evaluations
 * drawn as a flag's exposure chart, and the application it registered. Each step is checked
 * against the admin API too. CONSOLE_SCREENSHOTS=1 writes docs/console/ pictures of them.
 */
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { test } from 'node:test'
import type { Page } from 'playwright-core'
import { connectedSdk } from './sdk.ts'
import { heading, signIn, skip, startBrowserAndApp } from './browser.ts'
import { apiToken, call, onEachDatabase, type TestApp } from './test-app.ts'

const EVALUATIONS = 1_000

async function ok(pennon: TestApp, method: 'POST' | 'PUT', path: string, body?: unknown, status = 200): Promise<any> {
  const response = await call(pennon, method, path, body)
  assert.equal(response.status, status, response.text)
  return response.body
}

onEachDatabase('console insight pages in a browser', (database) => {
  test('the playground explains a flag; the exposure chart and the applications show what a real SDK reported', {
    skip,
    timeout: 240_000,
  }, async (t) => {
    const { pennon, base, browser } = await startBrowserAndApp(t, database)
    const problems: string[] = []
    const page: Page = await (await browser.newContext({ viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' })).newPage()
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

    await t.test('playground: a context that fails the constraint, then one that passes, each explained', async () => {
      const flags = '/api/admin/projects/default/features'
      await ok(
        pennon,
        'POST',
        '/api/admin/context',
        { name: 'region', legalValues: [{ value: 'eu' }, { value: 'us', description: 'United States' }] },
        201,
      )
      for (const [name, constraint] of [
        ['eu-banner', { contextName: 'region', operator: 'IN', values: ['eu'] }],
        ['pro-only', { contextName: 'plan', operator: 'IN', values: ['pro'] }],
      ] as const) {
        await ok(pennon, 'POST', flags, { name }, 201)
        await ok(pennon, 'POST', `${flags}/${name}/environments/development/strategies`, { name: 'default', constraints: [constraint] })
        await ok(pennon, 'POST', `${flags}/${name}/environments/development/on`)
      }
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Playground' }).click()
      await heading(page, 'Playground')
      assert.equal(await page.getByLabel('Environment', { exact: true }).inputValue(), 'development')
      // The defined field offers its legal values; a field not defined is a free property.
      assert.deepEqual(await page.getByLabel('region', { exact: true }).locator('option').allInnerTexts(), [
        '(not set)',
        'eu',
        'us (United States)',
      ])
      await page.getByLabel('region', { exact: true }).selectOption('us')
      await page.getByRole('button', { name: 'Add property' }).click()
      await page.getByLabel('Property 1 name').fill('plan')
      await page.getByLabel('Property 1 value').fill('pro')
      await page.getByRole('button', { name: 'Evaluate' }).click()
      const banner = page.locator('[data-feature="eu-banner"]')
      await banner.waitFor()
      assert.equal(await banner.getAttribute('data-state'), 'off')
      assert.equal(
        await banner.locator('[data-headline]').innerText(),
        "off: strategy 1's constraint region IN [eu] is false for region=us",
      )
      assert.equal(await banner.locator('[data-variant-reason]').innerText(), 'no variant: the flag is off')
      const proOnly = page.locator('[data-feature="pro-only"]')
      assert.equal(await proOnly.getAttribute('data-state'), 'on')
      assert.equal(
        await proOnly.locator('[data-headline]').innerText(),
        'on: strategy 1 holds: constraint plan IN [pro] is true for plan=pro',
      )
      await shot('playground')
      // The server says the same for the context the form sent.
      const played = async (region: string) =>
        (
          await ok(pennon, 'POST', '/api/admin/playground', {
            environment: 'development',
            context: { appName: 'playground', properties: { region, plan: 'pro' } },
          })
        ).features.map((feature: { name: string; isEnabled: boolean }) => [feature.name, feature.isEnabled])
      assert.deepEqual(await played('us'), [
        ['eu-banner', false],
        ['pro-only', true],
      ])

      await page.getByLabel('region', { exact: true }).selectOption('eu')
      await page.getByRole('button', { name: 'Evaluate' }).click()
      await page.locator('[data-feature="eu-banner"][data-state="on"]').waitFor()
      assert.equal(
        await banner.locator('[data-headline]').innerText(),
        'on: strategy 1 holds: constraint region IN [eu] is true for region=eu',
      )
      assert.equal(await banner.locator('[data-variant-reason]').innerText(), 'no variant: the flag has no variants here')
      assert.deepEqual(await played('eu'), [
        ['eu-banner', true],
        ['pro-only', true],
      ])
    })

    let yes = 0
    await t.test(
      `exposure: a real unleash-client evaluates a 50% rollout ${EVALUATIONS.toLocaleString('en')} times; the chart draws its counts, and when it was last seen`,
      async () => {
        const flag = 'half-rollout'
        const place = `/api/admin/projects/default/features/${flag}/environments/development`
        await ok(pennon, 'POST', '/api/admin/projects/default/features', { name: flag }, 201)
        await ok(pennon, 'POST', `${place}/strategies`, {
          name: 'flexibleRollout',
          parameters: { rollout: '50', stickiness: 'default', groupId: flag },
        })
        await ok(pennon, 'POST', `${place}/on`)
        const sdk = await connectedSdk(t, {
          base,
          token: await apiToken(pennon, 'client'),
          appName: 'insight-shop',
          instanceId: 'pod-1',
          metricsInterval: 300,
        })
        for (let userId = 0; userId < EVALUATIONS; userId++) if (sdk.isEnabled(flag, { userId: String(userId) })) yes += 1
        const no = EVALUATIONS - yes
        assert.ok(yes > 400 && no > 400, `about half: ${yes} yes`)
        await once(sdk, 'sent')
        // What the server holds is written about every second: written now.
        await pennon.metrics.flush()
        const raw = (await call(pennon, 'GET', `/api/admin/client-metrics/features/${flag}/raw?hoursBack=48`)).body.data as Array<{
          environment: string
          appName: string
          yes: number
          no: number
        }>
        const stored = raw.reduce((sum, entry) => ({ yes: sum.yes + entry.yes, no: sum.no + entry.no }), { yes: 0, no: 0 })
        assert.deepEqual(stored, { yes, no })
        assert.deepEqual([...new Set(raw.map((entry) => `${entry.environment}/${entry.appName}`))], ['development/insight-shop'])
        const environments = (await call(pennon, 'GET', `/api/admin/projects/default/features/${flag}`)).body.environments as Array<{
          name: string
          lastSeenAt: string | null
        }>
        const development = environments.find((environment) => environment.name === 'development')
        assert.ok(development?.lastSeenAt, 'seen in development')

        await page.goto(`${base}/#/projects/default/features/${flag}`)
        await heading(page, flag)
        const chart = page.locator('[data-exposure="development"] svg.exposure-chart')
        await chart.waitFor()
        const bars = await chart.locator('g[data-hour]').evaluateAll((groups) =>
          groups.map((group) => ({
            hour: group.getAttribute('data-hour'),
            yes: Number(group.getAttribute('data-yes')),
            no: Number(group.getAttribute('data-no')),
          })),
        )
        assert.equal(bars.length, 48)
        assert.deepEqual(
          bars.reduce((sum, bar) => ({ yes: sum.yes + bar.yes, no: sum.no + bar.no }), { yes: 0, no: 0 }),
          { yes, no },
        )
        assert.deepEqual(
          bars.map((bar) => bar.hour),
          [...bars.map((bar) => bar.hour)].sort(),
        )
        assert.equal(
          await chart.getAttribute('aria-label'),
          `development: ${EVALUATIONS} evaluations in the last 48 hours, ${yes} yes and ${no} no`,
        )
        assert.equal(
          await page.locator('[data-exposure="development"] [data-last-seen]').getAttribute('data-last-seen'),
          development.lastSeenAt,
        )
        assert.equal(await page.locator('[data-exposure="development"] [data-last-seen]').innerText(), 'Last seen just now')
        await page.locator('[data-exposure="production"]', { hasText: 'No evaluations reported in the last 48 hours.' }).waitFor()
        assert.equal(await page.locator('[data-exposure="production"] [data-last-seen]').innerText(), 'Last seen never')
        await page.locator('[data-exposure="development"]').scrollIntoViewIfNeeded()
        await shot('exposure')
      },
    )

    await t.test("applications: the SDK's application is listed, and its page shows its instance, SDK and flags", async () => {
      const listed = (await call(pennon, 'GET', '/api/admin/metrics/applications')).body.applications as Array<{
        appName: string
        sdkVersion: string
      }>
      assert.deepEqual(
        listed.map((application) => application.appName),
        ['insight-shop'],
      )
      assert.match(listed[0]!.sdkVersion, /^unleash-node-sdk:\d+\.\d+\.\d+$/)
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Applications' }).click()
      await heading(page, 'Applications')
      const row = page.locator('tr[data-application="insight-shop"]')
      await row.waitFor()
      assert.match(await row.innerText(), /insight-shop\s+unleash-node-sdk:\S+\s+every project: development/)
      await page.getByText('1–1 of 1 application').waitFor()
      await shot('applications')

      const application = (await call(pennon, 'GET', '/api/admin/metrics/applications/insight-shop')).body
      assert.deepEqual(
        application.instances.map((instance: { instanceId: string; environment: string }) => [instance.instanceId, instance.environment]),
        [['pod-1', 'development']],
      )
      assert.deepEqual(application.seenToggles, [{ name: 'half-rollout', project: 'default' }])
      // What an editor tells about it: its description is shown; a link that is not http(s) is shown, never followed.
      const told = { description: 'The shop front', url: 'javascript:alert(document.domain)' }
      assert.equal((await call(pennon, 'POST', '/api/admin/metrics/applications/insight-shop', told)).status, 202)
      await row.getByRole('link', { name: 'insight-shop' }).click()
      await heading(page, 'insight-shop')
      await page.getByText('The shop front', { exact: true }).waitFor()
      const link = page.locator('dl.facts dt', { hasText: /^Link$/ }).locator('xpath=following-sibling::dd[1]')
      assert.equal(await link.innerText(), 'javascript:alert(document.domain)')
      assert.equal(await link.locator('a').count(), 0)
      const instance = page.locator('tr[data-instance="pod-1"]')
      await instance.waitFor()
      assert.match(await instance.innerText(), /^pod-1\tdevelopment\tunleash-node-sdk:\S+ backend\t\S+\tjust now$/)
      assert.match(await page.locator('tr[data-environment="development"]').innerText(), /^development\t1\tunleash-node-sdk:\S+\tjust now$/)
      await page.locator('[data-flag="half-rollout"]').getByRole('link', { name: 'half-rollout' }).waitFor()
      await page.getByRole('heading', { name: 'Flags used (1)' }).waitFor()
      await shot('application')
      await page.locator('[data-flag="half-rollout"]').getByRole('link', { name: 'half-rollout' }).click()
      await heading(page, 'half-rollout')
    })

    await t.test('no script error and no CSP violation on any page', () => {
      // The sign-in page asks GET /api/admin/me whether a session exists: before signing in, a 401.
      assert.deepEqual(
        problems.filter((problem) => !/Failed to load resource: the server responded with a status of 401/.test(problem)),
        [],
      )
    })
  })
})
