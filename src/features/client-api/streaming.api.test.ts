/**
 * GET /api/client/streaming through a listening app on each database, read as raw server-sent
 * events: the first message (a hydration, or what was missed since Last-Event-ID), a change
 * pushed as `unleash-updated` with the delta API's events and state names, heartbeats, the
 * connection limits (429, per instance and per token), a client that does not read (cut), streaming
 * turned off (`fetch-mode`), and the streams ended on close.
 */
import assert from 'node:assert/strict'
import { request, type IncomingMessage } from 'node:http'
import { createConnection, type Socket } from 'node:net'
import { test } from 'node:test'
import { ConfigError, loadConfig } from '../../config.ts'
import {
  allEvents,
  apiToken,
  call,
  errorOf,
  eventually,
  onEachDatabase,
  useTestApp,
  withoutId,
  type TestApp,
} from '../../../test/test-app.ts'
import { createFlag } from '../../../test/helpers/flags.ts'
import { addStrategy, toggle } from '../../../test/helpers/strategies.ts'

interface SseMessage {
  id?: string
  event: string
  data: string
}

interface Stream {
  status: number
  headers: IncomingMessage['headers']
  /** The next message (comments included, as event `comment`). */
  next(ms?: number): Promise<SseMessage>
  /** Resolves when the server ends the response. */
  ended: Promise<void>
  close(): void
  body: string
}

async function listening(pennon: TestApp): Promise<string> {
  await pennon.app.listen({ port: 0, host: '127.0.0.1' })
  return `http://127.0.0.1:${(pennon.app.server.address() as { port: number }).port}`
}

function openStream(base: string, token: string, headers: Record<string, string> = {}, path = '/api/client/streaming'): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { headers: { authorization: token, ...headers } }, (response) => {
      response.setEncoding('utf8')
      let buffer = ''
      let body = ''
      const queue: SseMessage[] = []
      let waiting: ((message: SseMessage) => void) | undefined
      const ended = new Promise<void>((done) => response.on('end', done).on('close', done))
      response.on('data', (chunk: string) => {
        body += chunk
        buffer += chunk
        let end: number
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          const message: SseMessage = { event: 'message', data: '' }
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) message.event = 'comment'
            else if (line.startsWith('id: ')) message.id = line.slice(4)
            else if (line.startsWith('event: ')) message.event = line.slice(7)
            else if (line.startsWith('data: ')) message.data = line.slice(6)
          }
          if (waiting) {
            const deliver = waiting
            waiting = undefined
            deliver(message)
          } else queue.push(message)
        }
      })
      resolve({
        status: response.statusCode!,
        headers: response.headers,
        ended,
        get body() {
          return body
        },
        next: (ms = 5_000) =>
          queue.length > 0
            ? Promise.resolve(queue.shift()!)
            : new Promise((deliver, fail) => {
                const timer = setTimeout(() => fail(new Error(`no message within ${ms} ms`)), ms)
                waiting = (message) => {
                  clearTimeout(timer)
                  deliver(message)
                }
              }),
        close: () => req.destroy(),
      })
    })
    req.on('error', reject)
    req.end()
  })
}

/** A stream whose client never reads: not a byte is taken from its socket. */
function openUnreadStream(base: string, token: string): Promise<Socket> {
  const { port } = new URL(base)
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: '127.0.0.1', port: Number(port) })
    // Paused before it connects: nothing is ever read from the kernel.
    socket.pause()
    socket.once('error', reject)
    socket.once('connect', () => {
      socket.removeListener('error', reject)
      socket.write(`GET /api/client/streaming HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${token}\r\n\r\n`)
      resolve(socket)
    })
  })
}

/** The connections the listening app holds (streams, here). */
const connections = (pennon: TestApp) =>
  new Promise<number>((resolve, reject) => pennon.app.server.getConnections((error, count) => (error ? reject(error) : resolve(count))))

/** A strategy of about 100 KB (its user ids): every change to its flag is a message that large. */
const largeStrategy = { name: 'userWithId', parameters: { userIds: Array.from({ length: 10_000 }, (_, i) => `user-${i}`).join(',') } }

const latestEventId = async (pennon: TestApp) => (await allEvents(pennon)).at(-1).id as number
const disabled = (name: string) => ({
  name,
  type: 'release',
  enabled: false,
  project: 'default',
  stale: false,
  strategies: [],
  variants: [],
  description: null,
  impressionData: false,
})
const enabled = (name: string) => ({
  ...disabled(name),
  enabled: true,
  strategies: [
    { name: 'flexibleRollout', constraints: [], parameters: { rollout: '100', stickiness: 'default', groupId: name }, variants: [] },
  ],
})

onEachDatabase('client API: streaming', (database) => {
  test('unleash-connected with a hydration; each change pushed as unleash-updated, named as the delta API names its states', async (t) => {
    const pennon = await useTestApp(t, database)
    const base = await listening(pennon)
    const client = await apiToken(pennon, 'client')
    await createFlag(pennon, 'banner')
    const stream = await openStream(base, client)
    t.after(() => stream.close())
    assert.equal(stream.status, 200)
    assert.equal(stream.headers['content-type'], 'text/event-stream; charset=utf-8')
    assert.equal(stream.headers['cache-control'], 'no-cache')
    assert.equal(stream.headers['x-accel-buffering'], 'no')

    const connected = await stream.next()
    const delta = await call(pennon, 'GET', '/api/client/delta', undefined, { token: client })
    assert.deepEqual(connected, { id: (delta.headers.etag as string).slice(1, -1), event: 'unleash-connected', data: delta.text })
    assert.deepEqual(JSON.parse(connected.data), {
      events: [{ eventId: await latestEventId(pennon), type: 'hydration', features: [disabled('banner')], segments: [] }],
    })

    assert.equal((await toggle(pennon, 'banner', 'development', 'on')).status, 200)
    const updated = await stream.next()
    const after = await call(pennon, 'GET', '/api/client/delta', undefined, {
      token: client,
      headers: { 'if-none-match': delta.headers.etag as string },
    })
    assert.deepEqual(updated, { id: (after.headers.etag as string).slice(1, -1), event: 'unleash-updated', data: after.text })
    assert.deepEqual(JSON.parse(updated.data), {
      events: [{ eventId: await latestEventId(pennon), type: 'feature-updated', feature: enabled('banner') }],
    })

    // A write that changes nothing the token reads sends nothing.
    await apiToken(pennon, 'client', 'unrelated')
    await createFlag(pennon, 'second')
    const next = await stream.next()
    assert.equal(next.event, 'unleash-updated')
    assert.deepEqual(
      JSON.parse(next.data).events.map((event: any) => [event.type, event.feature.name]),
      [['feature-updated', 'second']],
    )
  })

  test('Last-Event-ID: the current state gets an empty unleash-connected, a held one what was missed, an unknown one a hydration', async (t) => {
    const pennon = await useTestApp(t, database)
    const base = await listening(pennon)
    const client = await apiToken(pennon, 'client')
    await createFlag(pennon, 'banner')
    const first = await openStream(base, client)
    const start = await first.next()
    first.close()

    const current = await openStream(base, client, { 'last-event-id': start.id! })
    assert.deepEqual(await current.next(), { id: start.id, event: 'unleash-connected', data: '{"events":[]}' })
    current.close()

    assert.equal((await toggle(pennon, 'banner', 'development', 'on')).status, 200)
    // Read once so this instance holds the step (a stream open meanwhile would have).
    await call(pennon, 'GET', '/api/client/delta', undefined, { token: client })
    const missed = await openStream(base, client, { 'last-event-id': start.id! })
    const caughtUp = await missed.next()
    assert.equal(caughtUp.event, 'unleash-connected')
    assert.deepEqual(JSON.parse(caughtUp.data), {
      events: [{ eventId: await latestEventId(pennon), type: 'feature-updated', feature: enabled('banner') }],
    })
    missed.close()

    const unknown = await openStream(base, client, { 'last-event-id': 'not-a-state' })
    const hydrated = await unknown.next()
    assert.equal(hydrated.id, caughtUp.id)
    assert.deepEqual(JSON.parse(hydrated.data), {
      events: [{ eventId: await latestEventId(pennon), type: 'hydration', features: [enabled('banner')], segments: [] }],
    })
    unknown.close()
  })

  test('heartbeats: an SSE comment every STREAMING_HEARTBEAT_MS', async (t) => {
    const pennon = await useTestApp(t, database, { env: { STREAMING_HEARTBEAT_MS: '50' } })
    const base = await listening(pennon)
    const stream = await openStream(base, await apiToken(pennon, 'client'))
    t.after(() => stream.close())
    // The first heartbeat may come before the state when reading it takes longer than 50 ms.
    let first = await stream.next()
    while (first.event === 'comment') first = await stream.next()
    assert.equal(first.event, 'unleash-connected')
    assert.deepEqual(await stream.next(1_000), { event: 'comment', data: '' })
    assert.deepEqual(await stream.next(1_000), { event: 'comment', data: '' })
    assert.match(stream.body, /\n\n: heartbeat\n\n: heartbeat\n\n/)
  })

  test('past STREAMING_MAX_CONNECTIONS: 429 with the error body, and polling SDKs are no longer told to stream', async (t) => {
    const pennon = await useTestApp(t, database, { env: { STREAMING_MAX_CONNECTIONS: '1', CLIENT_FETCH_MODE: 'streaming' } })
    const base = await listening(pennon)
    const client = await apiToken(pennon, 'client')
    assert.equal((await call(pennon, 'GET', '/api/client/features', undefined, { token: client })).headers['fetch-mode'], 'streaming')
    const first = await openStream(base, client)
    await first.next()
    const second = await openStream(base, client)
    assert.equal(second.status, 429)
    assert.equal(second.headers['retry-after'], '60')
    assert.equal(second.headers['content-type'], 'application/json; charset=utf-8')
    await second.ended
    assert.deepEqual(
      withoutId(JSON.parse(second.body)),
      errorOf(
        'TooManyRequestsError',
        'This server holds at most 1 streaming connections, and has that many open: poll /api/client/features or /api/client/delta instead.',
      ),
    )
    assert.equal((await call(pennon, 'GET', '/api/client/features', undefined, { token: client })).headers['fetch-mode'], undefined)
    // Once the server has seen the first one go, a stream is taken again.
    first.close()
    await eventually(async () => {
      const third = await openStream(base, client)
      third.close()
      return third.status === 200
    }, 'a stream taken after one closed')
  })

  test('past STREAMING_MAX_CONNECTIONS_PER_TOKEN: 429 with Retry-After for that token, and its polls are no longer told to stream; another token still streams', async (t) => {
    const pennon = await useTestApp(t, database, {
      env: { STREAMING_MAX_CONNECTIONS: '10', STREAMING_MAX_CONNECTIONS_PER_TOKEN: '2', CLIENT_FETCH_MODE: 'streaming' },
    })
    const base = await listening(pennon)
    const greedy = await apiToken(pennon, 'client', 'greedy')
    const other = await apiToken(pennon, 'client', 'other')
    const held = [await openStream(base, greedy), await openStream(base, greedy, { authorization: `Bearer ${greedy}` })]
    t.after(() => {
      for (const stream of held) stream.close()
    })
    for (const stream of held) assert.equal((await stream.next()).event, 'unleash-connected')

    const refused = await openStream(base, greedy)
    assert.equal(refused.status, 429)
    assert.equal(refused.headers['retry-after'], '60')
    assert.equal(refused.headers['content-type'], 'application/json; charset=utf-8')
    await refused.ended
    assert.deepEqual(
      withoutId(JSON.parse(refused.body)),
      errorOf(
        'TooManyRequestsError',
        'This token holds at most 2 streaming connections on this server, and has that many open: poll /api/client/features or /api/client/delta instead.',
      ),
    )
    assert.equal((await call(pennon, 'GET', '/api/client/features', undefined, { token: greedy })).headers['fetch-mode'], undefined)
    assert.equal((await call(pennon, 'GET', '/api/client/delta', undefined, { token: greedy })).headers['fetch-mode'], undefined)

    assert.equal((await call(pennon, 'GET', '/api/client/features', undefined, { token: other })).headers['fetch-mode'], 'streaming')
    const another = await openStream(base, other)
    t.after(() => another.close())
    assert.equal(another.status, 200)
    assert.equal((await another.next()).event, 'unleash-connected')

    // Once the server has seen one of the token's streams go, it may open one again.
    held.shift()!.close()
    await eventually(async () => {
      const again = await openStream(base, greedy)
      again.close()
      return again.status === 200
    }, 'a stream of the token taken after one of its own closed')
  })

  test('a client that never reads is cut once more than 64 KB of what it was sent waits past a heartbeat interval; a client that reads stays', async (t) => {
    const pennon = await useTestApp(t, database, { env: { STREAMING_HEARTBEAT_MS: '50' } })
    const base = await listening(pennon)
    const client = await apiToken(pennon, 'client')
    await createFlag(pennon, 'payload')
    await addStrategy(pennon, 'payload', 'development', largeStrategy)
    const reader = await openStream(base, client)
    t.after(() => reader.close())
    const stalled = await openUnreadStream(base, client)
    t.after(() => stalled.destroy())
    await eventually(async () => (await connections(pennon)) === 2, 'both streams open')

    // Each change is a message of ~100 KB to both. The kernel takes up to its send buffer for the
    // client that does not read (net.ipv4.tcp_wmem's most, 4 MB on Linux by default) before
    // anything waits in the server; what waits longer than a heartbeat interval is counted.
    let changes = 0
    while ((await connections(pennon)) === 2 && changes < 120) {
      assert.equal((await toggle(pennon, 'payload', 'development', changes % 2 === 0 ? 'on' : 'off')).status, 200)
      changes++
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    await eventually(async () => (await connections(pennon)) === 1, `the stream that is not read cut (after ${changes} changes of ~100 KB)`)
    assert.ok(
      pennon.logs.some((line) => line.includes('streaming: a client left what it was sent unread; its stream is cut')),
      'the cut is logged',
    )
    // Cut with a reset: the kernel dropped what it held for that client.
    const reset = new Promise<string | undefined>((resolve) => {
      stalled.once('error', (error: NodeJS.ErrnoException) => resolve(error.code))
      stalled.once('close', () => resolve(undefined))
    })
    stalled.resume()
    assert.equal(await reset, 'ECONNRESET')

    // The reader read every change as it came, and still gets the next.
    let last = await reader.next()
    while (last.event !== 'unleash-updated' || JSON.parse(last.data).events[0].feature.enabled !== (changes % 2 === 1))
      last = await reader.next()
    assert.equal((await toggle(pennon, 'payload', 'development', changes % 2 === 0 ? 'on' : 'off')).status, 200)
    let next = await reader.next()
    while (next.event === 'comment') next = await reader.next()
    assert.equal(next.event, 'unleash-updated')
    assert.equal(JSON.parse(next.data).events[0].feature.enabled, changes % 2 === 0)
  })

  test('a reader is not cut while it takes a hydration larger than its socket takes at once', async (t) => {
    // A message must be taken whole within a heartbeat interval or two: three seconds for ~5 MB read by this
    // process, which a loaded machine (CI, both databases' suites at once) still gives a reader that reads.
    const pennon = await useTestApp(t, database, { env: { STREAMING_HEARTBEAT_MS: '3000' } })
    const base = await listening(pennon)
    const client = await apiToken(pennon, 'client')
    // ~5 MB: more than loopback's send buffer (4 MB on Linux by default), so part waits in the server.
    for (let i = 0; i < 50; i++) {
      await createFlag(pennon, `large-${i}`)
      await addStrategy(pennon, `large-${i}`, 'development', largeStrategy)
    }
    const reader = await openStream(base, client)
    t.after(() => reader.close())
    let first = await reader.next(30_000)
    while (first.event === 'comment') first = await reader.next(30_000)
    assert.equal(first.event, 'unleash-connected')
    assert.equal(JSON.parse(first.data).events[0].features.length, 50)
    // Heartbeats go on (each one a check of what waits), and so does the stream.
    for (let i = 0; i < 2; i++) assert.deepEqual(await reader.next(6_000), { event: 'comment', data: '' })
    assert.equal((await toggle(pennon, 'large-0', 'development', 'on')).status, 200)
    let next = await reader.next()
    while (next.event === 'comment') next = await reader.next()
    assert.equal(next.event, 'unleash-updated')
    assert.ok(!pennon.logs.some((line) => line.includes('its stream is cut')), 'no stream was cut')
  })

  test('STREAMING_MAX_CONNECTIONS=0: streaming is off, the SDK is told to poll', async (t) => {
    const pennon = await useTestApp(t, database, { env: { STREAMING_MAX_CONNECTIONS: '0' } })
    const base = await listening(pennon)
    const stream = await openStream(base, await apiToken(pennon, 'client'))
    assert.equal(stream.status, 200)
    assert.deepEqual(await stream.next(), { event: 'fetch-mode', data: 'polling' })
    await stream.ended
  })

  test('client and admin tokens only; closing the app ends every stream', async (t) => {
    const pennon = await useTestApp(t, database)
    const base = await listening(pennon)
    const refused = await openStream(base, await apiToken(pennon, 'frontend'))
    assert.equal(refused.status, 403)
    await refused.ended
    assert.equal(withoutId(JSON.parse(refused.body)).name, 'NoAccessError')

    const streams = await Promise.all([
      openStream(base, await apiToken(pennon, 'client')),
      openStream(base, pennon.adminToken, {}, '/api/client/streaming?environment=production'),
    ])
    for (const stream of streams) assert.equal((await stream.next()).event, 'unleash-connected')
    const started = Date.now()
    await pennon.close()
    await Promise.all(streams.map((stream) => stream.ended))
    assert.ok(Date.now() - started < 2_000, `closed in ${Date.now() - started} ms`)
  })
})

test('STREAMING_MAX_CONNECTIONS_PER_TOKEN: 100 by default, at most STREAMING_MAX_CONNECTIONS when set', () => {
  assert.equal(loadConfig({}).streamingMaxConnectionsPerToken, 100)
  assert.equal(loadConfig({ STREAMING_MAX_CONNECTIONS_PER_TOKEN: '1000' }).streamingMaxConnectionsPerToken, 1000)
  // A lowered instance limit with the default: the instance's limit is reached first.
  assert.equal(loadConfig({ STREAMING_MAX_CONNECTIONS: '10' }).streamingMaxConnectionsPerToken, 100)
  assert.equal(loadConfig({ STREAMING_MAX_CONNECTIONS: '0', STREAMING_MAX_CONNECTIONS_PER_TOKEN: '5' }).streamingMaxConnectionsPerToken, 5)
  const cases: Array<[Record<string, string>, string]> = [
    [{ STREAMING_MAX_CONNECTIONS_PER_TOKEN: '0' }, 'STREAMING_MAX_CONNECTIONS_PER_TOKEN must be a whole number from 1 to 1000000; got "0"'],
    [
      { STREAMING_MAX_CONNECTIONS_PER_TOKEN: 'many' },
      'STREAMING_MAX_CONNECTIONS_PER_TOKEN must be a whole number from 1 to 1000000; got "many"',
    ],
    [{ STREAMING_MAX_CONNECTIONS_PER_TOKEN: '1001' }, 'STREAMING_MAX_CONNECTIONS_PER_TOKEN must not exceed STREAMING_MAX_CONNECTIONS'],
    [
      { STREAMING_MAX_CONNECTIONS: '10', STREAMING_MAX_CONNECTIONS_PER_TOKEN: '11' },
      'STREAMING_MAX_CONNECTIONS_PER_TOKEN must not exceed STREAMING_MAX_CONNECTIONS',
    ],
  ]
  for (const [env, message] of cases) {
    assert.throws(
      () => loadConfig(env),
      (error: Error) => error instanceof ConfigError && error.message === message,
      JSON.stringify(env),
    )
  }
})
