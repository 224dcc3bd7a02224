import assert from 'node:assert/strict'
import { test } from 'node:test'
import { gunzipSync } from 'node:zlib'
import { call, onEachDatabase, useTestApp } from '../../../test/test-app.ts'
import { consoleAssets } from './console-assets.ts'
import { CONSOLE_CSP } from './console-routes.ts'

// The console serves files, not data: one database is enough.
onEachDatabase('console serving', (database) => {
  if (database.name !== 'sqlite') return

  test('index.html at / with a strict CSP, revalidated on every load, naming the versioned assets', async (t) => {
    const pennon = await useTestApp(t, database)
    const index = await call(pennon, 'GET', '/', undefined, { token: null })
    assert.equal(index.status, 200)
    assert.equal(index.headers['content-type'], 'text/html; charset=utf-8')
    assert.equal(index.headers['content-security-policy'], CONSOLE_CSP)
    assert.equal(index.headers['cache-control'], 'no-cache')
    assert.equal(index.headers['x-content-type-options'], 'nosniff')
    const { version } = consoleAssets()
    assert.ok(index.text.includes(`<script type="module" src="/console/${version}/js/main.js"></script>`))
    assert.ok(index.text.includes('<meta name="pennon-auth-type" content="token">'))
    // Nothing inline for the CSP to refuse.
    assert.doesNotMatch(index.text, /<script(?![^>]*\bsrc=)[^>]*>|<style|\sstyle=|\son[a-z]+=/i)
    const again = await call(pennon, 'GET', '/', undefined, { token: null, headers: { 'if-none-match': String(index.headers.etag) } })
    assert.equal(again.status, 304)
    assert.equal(again.text, '')
  })

  test('AUTH_TYPE=none tells the console that nobody signs in', async (t) => {
    const pennon = await useTestApp(t, database, { env: { AUTH_TYPE: 'none' } })
    const index = await call(pennon, 'GET', '/', undefined, { token: null })
    assert.ok(index.text.includes('<meta name="pennon-auth-type" content="none">'))
  })

  test('assets are cached for a year, gzipped when asked, and only under the current version', async (t) => {
    const pennon = await useTestApp(t, database)
    const { version, files } = consoleAssets()
    for (const [path, type] of [
      ['js/main.js', 'text/javascript; charset=utf-8'],
      ['styles.css', 'text/css; charset=utf-8'],
      ['icon.svg', 'image/svg+xml'],
    ]) {
      const asset = await call(pennon, 'GET', `/console/${version}/${path}`, undefined, { token: null })
      assert.equal(asset.status, 200, path)
      assert.equal(asset.headers['content-type'], type)
      assert.equal(asset.headers['cache-control'], 'public, max-age=31536000, immutable')
      assert.equal(asset.text, files.get(path)!.body.toString())
    }
    const zipped = await pennon.app.inject({
      method: 'GET',
      url: `/console/${version}/js/main.js`,
      headers: { 'accept-encoding': 'gzip, br' },
    })
    assert.equal(zipped.headers['content-encoding'], 'gzip')
    assert.equal(gunzipSync(zipped.rawPayload).toString(), files.get('js/main.js')!.body.toString())
    for (const url of [
      `/console/0000000000000000/js/main.js`,
      `/console/${version}/js/nope.js`,
      `/console/${version}/../tsconfig.json`,
      `/console/${version}/`,
    ]) {
      assert.equal((await call(pennon, 'GET', url, undefined, { token: null })).status, 404, url)
    }
  })

  test('the console is not part of the OpenAPI document', async (t) => {
    const pennon = await useTestApp(t, database)
    const document = await call(pennon, 'GET', '/docs/openapi.json', undefined, { token: null })
    assert.ok(!Object.keys(document.body.paths).some((path) => path === '/' || path.startsWith('/console')))
    assert.ok('/api/admin/me' in document.body.paths)
  })
})
