/**
 * What the browser tests share: the system's headless Chromium (Debian's `chromium`; `.ci/run`
 * installs it), driven by playwright-core, which never downloads a browser of its own; signing in;
 * waiting for a page's heading.
 */
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { chromium, type Browser, type Page } from 'playwright-core'
import { createTestApp, type TestApp, type TestAppOptions, type TestDatabase } from './test-app.ts'

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
// Without the background-networking flags Chromium dials out, and a closed network refuses it.
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]
// CI must have the browser (.ci/run installs it); elsewhere a machine without it skips, saying why.
export const skip =
  !existsSync(CHROMIUM) && process.env.CI === undefined
    ? `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`
    : false

/** A test app listening on loopback and the system's Chromium, both closed after the test. */
export async function startBrowserAndApp(
  t: { after(fn: () => Promise<void>): void },
  database: TestDatabase,
  options?: TestAppOptions,
): Promise<{ pennon: TestApp; base: string; browser: Browser }> {
  const pennon = await createTestApp(database, options)
  let browser: Browser | undefined
  // The browser first: a connection Chromium opened ahead of need (a preconnect) and never sent a
  // request on is not idle to Node, so the server's close would wait for Chromium to drop it (a
  // minute, or for good).
  t.after(async () => {
    await browser?.close()
    await pennon.close()
  })
  await pennon.app.listen({ port: 0, host: '127.0.0.1' })
  const address = pennon.app.server.address()
  assert.ok(address && typeof address === 'object')
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 30_000 })
  return { pennon, base: `http://127.0.0.1:${address.port}`, browser }
}

/** Signs in with a token: the sign-in page's second way (the first is a person's password). */
export async function signIn(page: Page, base: string, token: string): Promise<void> {
  await page.goto(`${base}/`)
  await page.getByRole('button', { name: 'API token' }).click()
  await page.getByLabel('API token').fill(token)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.locator('#nav:not([hidden])').waitFor()
}

/** The heading of the page shown, once the view has rendered it. */
export async function heading(page: Page, text: string): Promise<void> {
  await page.locator('main h1', { hasText: text }).first().waitFor()
  await page.locator('main[aria-busy]').waitFor({ state: 'detached' })
}
