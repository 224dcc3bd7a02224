import { chromium } from 'playwright-core'
const base = process.argv[2]
const spec = await (await fetch(`${base}/docs/openapi.json`)).json()
const ops = Object.values(spec.paths).reduce((n, p) => n + Object.keys(p).length, 0)
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] })
const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
await page.goto(`${base}/docs/openapi/`)
await page.locator('.opblock').first().waitFor()
const seen = new Set()
for (let y = 0; ; y += 600) {
  await page.evaluate((top) => window.scrollTo(0, top), y)
  await page.waitForTimeout(50)
  for (const id of await page.locator('.opblock').evaluateAll((els) => els.map((e) => e.id))) seen.add(id)
  if (y > (await page.evaluate(() => document.documentElement.scrollHeight))) break
}
console.log('ops', ops, 'seen', seen.size)
await browser.close()
