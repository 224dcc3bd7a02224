/**
 * OFREP's event stream (ADR-0008) through the real app, listening, on each database: the bulk
 * answer offers it with a credential in its URL; a change in the token's scope sends
 * `refetchEvaluation`, a change elsewhere nothing; an altered, foreign or expired credential is refused.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { apiToken, call, onEachDatabase, useTestApp, type TestApp } from '../../../test/test-app.ts'
import { createFlag, createProject } from '../../../test/helpers/flags.ts'
import { frontendToken } from '../../../test/helpers/frontend.ts'
import { toggle } from '../../../test/helpers/strategies.ts'

const FLAGS = '/ofrep/v1/evaluate/flags'

async function listening(pennon: TestApp): Promise<string> {
  await pennon.app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = pennon.app.server.address() as { port: number }
  return `http://127.0.0.1:${port}`
}

/** An open stream: what it has received so far, and a wait for a text to arrive. */
async function openStream(t: { after(fn: () => void): void }, url: string) {
  const controller = new AbortController()
  t.after(() => controller.abort())
  const response = await fetch(url, { signal: controller.signal })
  let received = ''
  const waiters: Array<() => void> = []
  if (response.body) {
    void (async () => {
      const decoder = new TextDecoder()
      try {
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          received += decoder.decode(chunk, { stream: true })
          for (const wake of waiters.splice(0)) wake()
        }
      } catch {
        // Aborted at the end of the test.
      }
    })()
  }
  return {
    response,
    received: () => received,
    async until(text: string, ms = 5000): Promise<void> {
      const deadline = Date.now() + ms
      while (!received.includes(text)) {
        if (Date.now() > deadline) throw new Error(`no ${text} in ${JSON.stringify(received)}`)
        await new Promise<void>((resolve) => {
          waiters.push(resolve)
          setTimeout(resolve, 50)
        })
      }
    },
  }
}

onEachDatabase('OFREP event stream', (database) => {
  test('the bulk answer offers a stream; a change in the scope sends refetchEvaluation, a change outside it nothing', async (t) => {
    const pennon = await useTestApp(t, database)
    await createProject(pennon, 'other')
    await createFlag(pennon, 'home')
    await createFlag(pennon, 'elsewhere', 'other')
    const base = await listening(pennon)
    const token = await frontendToken(pennon, 'development', ['default'])
    const bulk = await call(pennon, 'POST', FLAGS, { context: {} }, { token })
    assert.equal(bulk.status, 200, bulk.text)
    assert.deepEqual(Object.keys(bulk.body), ['flags', 'eventStreams'])
    const [stream] = bulk.body.eventStreams
    assert.deepEqual(Object.keys(stream), ['type', 'endpoint'])
    assert.equal(stream.type, 'sse')
    const requestUri: string = stream.endpoint.requestUri
    assert.match(
      requestUri,
      /^\/ofrep\/v1\/events\?token=frontend-[0-9a-f]+&environment=development&projects=default&expires=\d+&signature=[A-Za-z0-9_-]{43}$/,
    )
    const expires = Number(new URL(requestUri, base).searchParams.get('expires'))
    assert.ok(expires - Date.now() > 3_600_000 && expires - Date.now() <= 7_200_000, 'good for one to two hours')
    // The same URL for another request of the token (the body, and its ETag, stay the same).
    assert.deepEqual(
      (await call(pennon, 'POST', FLAGS, { context: { targetingKey: 'u' } }, { token })).body.eventStreams,
      bulk.body.eventStreams,
    )

    const events = await openStream(t, `${base}${requestUri}`)
    assert.equal(events.response.status, 200)
    assert.equal(events.response.headers.get('content-type'), 'text/event-stream; charset=utf-8')
    assert.equal(events.response.headers.get('access-control-allow-origin'), '*')
    assert.equal((await toggle(pennon, 'elsewhere', 'development', 'on', 'other')).status, 200)
    assert.equal((await toggle(pennon, 'home', 'development', 'on')).status, 200)
    await events.until('refetchEvaluation')
    const messages = events
      .received()
      .split('\n\n')
      .filter((message) => message.includes('data:'))
    assert.equal(messages.length, 1, events.received())
    assert.match(messages[0]!, /^id: (\S+)\nevent: message\ndata: \{"type":"refetchEvaluation","etag":"(\S+)"\}$/)
  })

  test('an altered, expired or foreign credential is refused with 401 and no body; a deleted token ends its credentials', async (t) => {
    const pennon = await useTestApp(t, database)
    const base = await listening(pennon)
    const token = await apiToken(pennon, 'client', 'stream-client')
    const uri: string = (await call(pennon, 'POST', FLAGS, { context: {} }, { token })).body.eventStreams[0].endpoint.requestUri
    const url = new URL(uri, base)
    const variants = (change: (query: URLSearchParams) => void) => {
      const altered = new URL(url)
      change(altered.searchParams)
      return altered.toString()
    }
    for (const refused of [
      variants((query) => query.set('projects', 'secret')),
      variants((query) => query.set('environment', 'production')),
      variants((query) => query.set('expires', String(Number(query.get('expires')) + 3_600_000))),
      variants((query) => query.set('expires', String(Date.now() - 1))),
      variants((query) => query.set('signature', `${'A'.repeat(42)}B`)),
      variants((query) => query.delete('signature')),
      variants((query) => query.delete('token')),
      variants((query) => query.set('token', 'someone-else')),
    ]) {
      const response = await fetch(refused)
      assert.equal(response.status, 401, refused)
      assert.equal(await response.text(), '')
    }
    const working = await fetch(url)
    assert.equal(working.status, 200)
    await working.body?.cancel()
    assert.equal((await call(pennon, 'DELETE', '/api/admin/api-tokens/stream-client')).status, 200)
    assert.equal((await fetch(url)).status, 401)
  })
})
