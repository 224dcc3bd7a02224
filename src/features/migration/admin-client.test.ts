/** The migration's admin client waits out a server's rate limit (429) as the server asks, within bounds. */
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { test } from 'node:test'
import { createAdminClient } from './admin-client.ts'

test('a 429 is waited out for its Retry-After, then the request is sent again; other answers are as they came', async (t) => {
  let asked = 0
  const server = createServer((request, response) => {
    asked++
    if (request.url === '/limited' && asked === 1) {
      response.writeHead(429, { 'retry-after': '1', 'content-type': 'text/plain' }).end('Too many requests')
      return
    }
    response
      .writeHead(request.url === '/missing' ? 404 : 200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ url: request.url, authorization: request.headers.authorization }))
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.after(() => server.close())
  const waits: Array<[number, string]> = []
  const client = createAdminClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, 'secret', (seconds, path) =>
    waits.push([seconds, path]),
  )

  const started = Date.now()
  assert.deepEqual(await client.get('/limited'), { url: '/limited', authorization: 'secret' })
  assert.ok(Date.now() - started >= 1000, 'waited the second it was asked to')
  assert.deepEqual(waits, [[1, '/limited']])
  assert.equal(asked, 2)
  assert.deepEqual(await client.request('GET', '/missing'), { status: 404, body: { url: '/missing', authorization: 'secret' } })
  assert.equal(waits.length, 1)
})
