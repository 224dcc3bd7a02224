/**
 * AUTH_TYPE=none against real attacks in the system's headless Chromium (test/browser.ts): a page
 * of another site with a plain auto-submitting HTML form, and a page whose name was rebound to
 * Pennon's address (Chromium's resolver maps `*.example` to 127.0.0.1, as a rebinding DNS server would).
 */
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { test } from 'node:test'
import { chromium, type Page } from 'playwright-core'
import { CHROMIUM, CHROMIUM_ARGS, skip } from './browser.ts'
import { allEvents, call, onEachDatabase, useTestApp } from './test-app.ts'

const CROSS_SITE =
  "Cross-site request refused: with AUTH_TYPE=none, a request without an API token that changes something must come from Pennon's own pages."

/** Opens `url` and returns the first answer from `base` it leads to (the form's navigation), with the headers the browser sent. */
async function answerFrom(page: Page, base: string, url: string) {
  const answered = page.waitForResponse((response) => response.url().startsWith(base))
  await page.goto(url)
  const response = await answered
  return { status: response.status(), sent: await response.request().allHeaders(), body: await response.text() }
}

onEachDatabase('AUTH_TYPE=none in a browser', (database) => {
  test("another site's auto-submitting form changes nothing, a page on a rebound name is refused; Pennon's own page still changes things", {
    skip,
    timeout: 120_000,
  }, async (t) => {
    const pennon = await useTestApp(t, database, { env: { AUTH_TYPE: 'none' } })
    await pennon.app.listen({ port: 0, host: '127.0.0.1' })
    const port = (pennon.app.server.address() as AddressInfo).port
    const base = `http://127.0.0.1:${port}`
    assert.equal((await call(pennon, 'POST', '/api/admin/projects/default/features', { name: 'checkout' }, { token: null })).status, 201)
    const events = await allEvents(pennon)

    // The other site: plain HTML, no script but the submit. A form can send urlencoded or text/plain bodies, never JSON's type.
    const forms: Record<string, string> = {
      '/switch-on': `<form method="POST" action="${base}/api/admin/projects/default/features/checkout/environments/development/on"><input name="x" value="1"></form>`,
      '/plant-project': `<form method="POST" enctype="text/plain" action="${base}/api/admin/projects"><input name='{"id":"planted","name":"Planted","pad":"' value='"}'></form>`,
    }
    const site = createServer((request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      response.end(`<!doctype html><title>Win a prize</title>${forms[request.url ?? ''] ?? ''}<script>document.forms[0].submit()</script>`)
    })
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve))
    t.after(() => new Promise<void>((resolve) => site.close(() => resolve())))
    const attacker = `http://attacker.example:${(site.address() as AddressInfo).port}`

    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [...CHROMIUM_ARGS, '--host-resolver-rules=MAP *.example 127.0.0.1'],
      timeout: 30_000,
    })
    t.after(() => browser.close())
    const page = await (await browser.newContext()).newPage()
    page.setDefaultTimeout(15_000)

    const switched = await answerFrom(page, base, `${attacker}/switch-on`)
    assert.equal(switched.sent.origin, attacker)
    assert.equal(switched.sent['sec-fetch-site'], 'cross-site')
    assert.equal(switched.sent['content-type'], 'application/x-www-form-urlencoded')
    assert.equal(switched.status, 403, switched.body)
    assert.equal(JSON.parse(switched.body).message, CROSS_SITE)
    const flag = await call(pennon, 'GET', '/api/admin/projects/default/features/checkout/environments/development', undefined, {
      token: null,
    })
    assert.equal(flag.body.enabled, false)
    assert.deepEqual(await allEvents(pennon), events)

    const planted = await answerFrom(page, base, `${attacker}/plant-project`)
    assert.equal(planted.sent['content-type'], 'text/plain')
    assert.equal(planted.status, 403, planted.body)
    assert.equal((await call(pennon, 'GET', '/api/admin/projects/planted', undefined, { token: null })).status, 404)

    // Rebound: the page's own name now points at Pennon, so the browser would let it read every answer.
    const rebound = `http://rebound.example:${port}`
    for (const path of ['/', '/api/admin/projects', '/api/client/features']) {
      const response = await page.goto(`${rebound}${path}`)
      assert.equal(response?.status(), 421, path)
      assert.equal(JSON.parse(await response!.text()).name, 'MisdirectedRequestError')
    }
    const fromRebound = await page.evaluate(
      async () => (await fetch('/api/admin/projects/default/features/checkout/environments/development/on', { method: 'POST' })).status,
    )
    assert.equal(fromRebound, 421)
    assert.deepEqual(await allEvents(pennon), events)

    // Pennon's own page (the console) still changes things: its requests are same-origin.
    await page.goto(`${base}/`)
    const fromConsole = await page.evaluate(
      async () => (await fetch('/api/admin/projects/default/features/checkout/environments/development/on', { method: 'POST' })).status,
    )
    assert.equal(fromConsole, 200)
    assert.equal(
      (await call(pennon, 'GET', '/api/admin/projects/default/features/checkout/environments/development', undefined, { token: null })).body
        .enabled,
      true,
    )
  })
})
