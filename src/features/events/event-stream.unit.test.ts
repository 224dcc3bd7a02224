import assert from 'node:assert/strict'
import type { Readable } from 'node:stream'
import { text } from 'node:stream/consumers'
import { setImmediate } from 'node:timers/promises'
import { describe, test } from 'node:test'
import { eventListPieces, openJsonBody } from './event-stream.ts'

const event = (id: number) => ({ id, type: 'feature-archived', data: null, note: 'ü"\\'.repeat(id % 4) })

/** Pages of stored rows, as a cursor yields them; records how far it got and whether it was closed. */
function source(pages: number[][], options: { failAfter?: number } = {}) {
  const state = { pagesRead: 0, closed: false }
  async function* rows() {
    try {
      for (const page of pages) {
        if (options.failAfter !== undefined && state.pagesRead >= options.failAfter) throw new Error('connection lost')
        state.pagesRead++
        await Promise.resolve()
        yield page.map((id) => ({ json: JSON.stringify(event(id)) }))
      }
    } finally {
      state.closed = true
    }
  }
  return { rows: rows(), state }
}

/** Resolves once a stream has closed, i.e. its destroy (and the source's cleanup) finished. */
const closed = (stream: Readable) => (stream.closed ? Promise.resolve() : new Promise((resolve) => stream.once('close', resolve)))

const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i)

describe('event list pieces', () => {
  test('equal JSON.stringify of the same object, whatever the paging', async () => {
    for (const pages of [[], [[]], [[1]], [[1, 2], [], [3]], [range(1, 1000), range(1001, 1000), [2001]]]) {
      const { rows } = source(pages)
      const all = (await Array.fromAsync(eventListPieces('{"version":1,"events":[', rows))).join('')
      const events = pages.flat().map(event)
      assert.equal(all, JSON.stringify({ version: 1, events, totalEvents: events.length }))
    }
  })
})

describe('open JSON body', () => {
  test('a short document comes back whole, as a string', async () => {
    const { rows, state } = source([[1, 2, 3]])
    const body = await openJsonBody(eventListPieces('{"events":[', rows))
    assert.equal(typeof body, 'string')
    assert.equal(body, JSON.stringify({ events: [1, 2, 3].map(event), totalEvents: 3 }))
    assert.ok(state.closed)
  })

  test('a long one is a stream that reads on demand and ends with the same text', async () => {
    const pages = Array.from({ length: 50 }, (_, i) => range(i * 500 + 1, 500))
    const { rows, state } = source(pages)
    const body = await openJsonBody(eventListPieces('{"events":[', rows))
    assert.ok(typeof body !== 'string')
    assert.ok(state.pagesRead < 10, `only the start was read before sending (${state.pagesRead} pages)`)
    await setImmediate()
    assert.ok(state.pagesRead < 10, `nothing read ahead of the client (${state.pagesRead} pages)`)
    const events = pages.flat().map(event)
    assert.equal(await text(body.stream), JSON.stringify({ events, totalEvents: events.length }))
    assert.equal(await body.whole, undefined)
    assert.ok(state.closed)
  })

  test('read ahead: the whole document completes while the client reads nothing, and is sent alike', async () => {
    const pages = Array.from({ length: 50 }, (_, i) => range(i * 500 + 1, 500))
    const { rows, state } = source(pages)
    const body = await openJsonBody(eventListPieces('{"events":[', rows), { readAhead: 8 * 1024 * 1024 })
    assert.ok(typeof body !== 'string')
    await setImmediate()
    assert.ok(state.pagesRead < pages.length, 'reading ahead lets the event loop turn (a synchronous cursor would hold it)')
    const events = pages.flat().map(event)
    const expected = JSON.stringify({ events, totalEvents: events.length })
    const whole = await body.whole
    assert.ok(whole instanceof Buffer)
    assert.equal(whole.toString('utf8'), expected)
    assert.ok(state.closed, 'the source is done before the client read anything')
    assert.equal(await text(body.stream), expected)
  })

  test('past the read-ahead limit there is no whole document, and the rest is read on demand', async () => {
    const pages = Array.from({ length: 50 }, (_, i) => range(i * 500 + 1, 500))
    const { rows, state } = source(pages)
    const body = await openJsonBody(eventListPieces('{"events":[', rows), { readAhead: 200 * 1024 })
    assert.ok(typeof body !== 'string')
    assert.equal(await body.whole, undefined)
    await setImmediate()
    assert.ok(state.pagesRead < 10, `read ahead only to the limit (${state.pagesRead} pages)`)
    const events = pages.flat().map(event)
    assert.equal(await text(body.stream), JSON.stringify({ events, totalEvents: events.length }))
    assert.ok(state.closed)
  })

  test('read ahead: a document of exactly `readAhead` bytes comes back whole, one byte longer does not', async () => {
    const pages = Array.from({ length: 30 }, (_, i) => range(i * 500 + 1, 500))
    const events = pages.flat().map(event)
    const expected = JSON.stringify({ events, totalEvents: events.length })
    const bytes = Buffer.byteLength(expected)
    assert.ok(bytes > expected.length, 'the text is not all ASCII: bytes, not characters, are counted')

    const fits = await openJsonBody(eventListPieces('{"events":[', source(pages).rows), { readAhead: bytes })
    assert.ok(typeof fits !== 'string')
    assert.equal((await fits.whole)?.toString('utf8'), expected)
    assert.equal(await text(fits.stream), expected)

    // The last piece does not fit: it is sent after what was read ahead, as text.
    const over = await openJsonBody(eventListPieces('{"events":[', source(pages).rows), { readAhead: bytes - 1 })
    assert.ok(typeof over !== 'string')
    assert.equal(await over.whole, undefined)
    assert.equal(await text(over.stream), expected)
  })

  test('a failure while reading ahead errors the stream; a client leaving stops the read ahead', async () => {
    const pages = Array.from({ length: 50 }, (_, i) => range(i * 500 + 1, 500))
    const failing = source(pages, { failAfter: 20 })
    const failed = await openJsonBody(eventListPieces('{"events":[', failing.rows), { readAhead: 8 * 1024 * 1024 })
    assert.ok(typeof failed !== 'string')
    assert.equal(await failed.whole, undefined)
    await assert.rejects(text(failed.stream), /connection lost/)
    assert.ok(failing.state.closed)

    const left = source(pages)
    const body = await openJsonBody(eventListPieces('{"events":[', left.rows), { wholeSize: 1024, readAhead: 8 * 1024 * 1024 })
    assert.ok(typeof body !== 'string')
    body.stream.destroy()
    assert.equal(await body.whole, undefined)
    await closed(body.stream)
    assert.ok(left.state.closed)
    assert.ok(left.state.pagesRead < pages.length, `stopped early (${left.state.pagesRead} pages)`)
  })

  test('a failure before the first bytes rejects, so it becomes an ordinary error response', async () => {
    const { rows, state } = source([[1], [2]], { failAfter: 1 })
    await assert.rejects(openJsonBody(eventListPieces('{"events":[', rows)), /connection lost/)
    assert.ok(state.closed)
  })

  test('a failure later errors the stream and closes the source', async () => {
    const pages = Array.from({ length: 50 }, (_, i) => range(i * 500 + 1, 500))
    const { rows, state } = source(pages, { failAfter: 20 })
    const body = await openJsonBody(eventListPieces('{"events":[', rows))
    assert.ok(typeof body !== 'string')
    await assert.rejects(text(body.stream), /connection lost/)
    assert.ok(state.closed)
  })

  test('destroyed before its first read, or half-way, the stream closes the source', async () => {
    const pages = Array.from({ length: 50 }, (_, i) => range(i * 500 + 1, 500))
    const untouched = source(pages)
    const unopened = await openJsonBody(eventListPieces('{"events":[', untouched.rows), { wholeSize: 1024 })
    assert.ok(typeof unopened !== 'string')
    const unread = unopened.stream
    unread.destroy()
    await closed(unread)
    assert.ok(untouched.state.closed)

    const halfway = source(pages)
    const opened = await openJsonBody(eventListPieces('{"events":[', halfway.rows), { wholeSize: 1024 })
    assert.ok(typeof opened !== 'string')
    const body = opened.stream
    let chunks = 0
    for await (const _chunk of body) if (++chunks === 5) break // for-await's break destroys the stream
    await closed(body)
    assert.ok(halfway.state.closed)
    assert.ok(halfway.state.pagesRead < pages.length)
  })
})
