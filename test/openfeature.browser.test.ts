/**
 * OpenFeature in a real Chromium: a page on another origin loads @openfeature/web-sdk and
 * @openfeature/ofrep-web-provider (0.4.3), served from node_modules by this test (no network),
 * with a frontend token. One bulk POST at start, a second on a context change, a 304 when a change
 * leaves its answers as they were, and a flag switched in the console reaches the page within a
 * second through the event stream, as a configuration-changed event naming that flag.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { join, normalize } from 'node:path'
import { test } from 'node:test'
import { heading, signIn, skip, startBrowserAndApp } from './browser.ts'
import { call, onEachDatabase } from './test-app.ts'
import { createFlag } from './helpers/flags.ts'
import { frontendToken } from './helpers/frontend.ts'
import { addStrategy, toggle } from './helpers/strategies.ts'

const MODULES = join(import.meta.dirname, '..', 'node_modules', '@openfeature')
const IMPORTS = {
  '@openfeature/core': '/m/core/dist/esm/index.js',
  '@openfeature/web-sdk': '/m/web-sdk/dist/esm/index.js',
  '@openfeature/ofrep-core': '/m/ofrep-web-provider/node_modules/@openfeature/ofrep-core/index.esm.js',
  '@openfeature/ofrep-web-provider': '/m/ofrep-web-provider/index.esm.js',
}

// The application: its context, the provider, and what the provider tells it.
const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>OpenFeature app</title>
<script type="importmap">${JSON.stringify({ imports: IMPORTS })}</script>
<script type="module">
  import { OpenFeature, ProviderEvents } from '@openfeature/web-sdk'
  import { OFREPWebProvider } from '@openfeature/ofrep-web-provider'
  const query = new URLSearchParams(location.search)
  window.OpenFeature = OpenFeature
  window.changes = []
  OpenFeature.addHandler(ProviderEvents.ConfigurationChanged, (event) => window.changes.push({ at: Date.now(), flags: event.flagsChanged ?? [] }))
  await OpenFeature.setContext({ targetingKey: 'ann', plan: 'free' })
  await OpenFeature.setProviderAndWait(
    new OFREPWebProvider({ baseUrl: query.get('base'), headers: [['Authorization', query.get('token')]], cacheMode: 'disabled' }),
  )
  window.client = OpenFeature.getClient()
  document.title = 'ready'
</script>`

/** The page's origin: the page, and the SDK's modules from node_modules. */
async function servePage(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://page').pathname
    if (path === '/') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE)
      return
    }
    const file = normalize(join(MODULES, path.replace(/^\/m\//, '')))
    if (!path.startsWith('/m/') || !file.startsWith(MODULES)) {
      response.writeHead(404).end()
      return
    }
    response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(readFileSync(file))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`
}

onEachDatabase('OpenFeature web provider in a browser', (database) => {
  test('bulk at start and on a context change, 304 when nothing changed for it, a console switch on the page within a second', {
    skip,
    timeout: 120_000,
  }, async (t) => {
    const { pennon, base, browser } = await startBrowserAndApp(t, database)
    await createFlag(pennon, 'banner')
    assert.equal((await toggle(pennon, 'banner', 'development', 'on')).status, 200)
    await createFlag(pennon, 'pro-feature')
    await addStrategy(pennon, 'pro-feature', 'development', {
      name: 'default',
      constraints: [{ contextName: 'plan', operator: 'IN', values: ['pro'] }],
    })
    assert.equal((await toggle(pennon, 'pro-feature', 'development', 'on')).status, 200)
    await createFlag(pennon, 'later')
    const token = await frontendToken(pennon, 'development')
    const origin = await servePage(t)

    const page = await browser.newPage()
    const bulks: number[] = []
    page.on('response', (response) => {
      if (response.request().method() === 'POST' && new URL(response.url()).pathname === '/ofrep/v1/evaluate/flags')
        bulks.push(response.status())
    })
    const stream = page.waitForResponse((response) => new URL(response.url()).pathname === '/ofrep/v1/events')
    await page.goto(`${origin}/?${new URLSearchParams({ base, token })}`)
    await page.waitForFunction(() => document.title === 'ready')
    const value = (flag: string) => page.evaluate((key) => (window as any).client.getBooleanValue(key, false) as boolean, flag)
    assert.deepEqual(bulks, [200], 'one bulk evaluation at start')
    assert.equal(await value('banner'), true)
    assert.equal(await value('pro-feature'), false)
    assert.equal(await value('later'), false)
    const details = await page.evaluate(() => (window as any).client.getBooleanDetails('later', true))
    assert.equal(details.errorCode, undefined, 'a disabled flag is found, and false')
    assert.equal(details.reason, 'DISABLED')
    assert.equal((await stream).status(), 200)

    // A context change: a second bulk evaluation.
    await page.evaluate(() => (window as any).OpenFeature.setContext({ targetingKey: 'ann', plan: 'pro' }))
    assert.deepEqual(bulks, [200, 200])
    assert.equal(await value('pro-feature'), true)

    // A change that leaves this context's answers as they were (a description): the stream says refetch, and the answer is 304.
    const described = await call(pennon, 'PATCH', '/api/admin/projects/default/features/banner', [
      { op: 'replace', path: '/description', value: 'Shown on the front page' },
    ])
    assert.equal(described.status, 200, described.text)
    await page.waitForResponse((response) => response.status() === 304 && new URL(response.url()).pathname === '/ofrep/v1/evaluate/flags')
    assert.deepEqual(bulks, [200, 200, 304])

    // The console: switch `later` on, and time it until the page is told.
    const consolePage = await browser.newPage()
    await signIn(consolePage, base, pennon.adminToken)
    await consolePage.goto(`${base}/#/projects/default/features/later`)
    await heading(consolePage, 'later')
    const changesBefore = await page.evaluate(() => (window as any).changes.length as number)
    const switched = Date.now()
    await consolePage.getByRole('switch', { name: 'later in development' }).click()
    await page.waitForFunction(
      (before) => (window as any).changes.slice(before).some((change: { flags: string[] }) => change.flags.includes('later')),
      changesBefore,
      { timeout: 5000 },
    )
    const change = await page.evaluate(
      (before) => (window as any).changes.slice(before).find((c: { flags: string[] }) => c.flags.includes('later')),
      changesBefore,
    )
    const elapsed = change.at - switched
    t.diagnostic(`the switch reached the page ${elapsed} ms after the click`)
    assert.ok(elapsed < 1000, `${elapsed} ms`)
    assert.deepEqual(change.flags, ['later'])
    assert.equal(await value('later'), true)
    assert.deepEqual(bulks, [200, 200, 304, 200])
  })
})
