import assert from 'node:assert/strict'
import { EventEmitter } from 'node:events'
import { test } from 'node:test'
import type { FastifyReply } from 'fastify'
import { createBodyPool } from './body-pool.ts'

test('a body given back is reused for the next one that fits; a longer one gets a buffer of its own', () => {
  const pool = createBodyPool()
  const first = pool.take(1000)
  assert.equal(first.length, 1000)
  pool.giveBack(first)
  const second = pool.take(900)
  assert.equal(second.length, 900)
  assert.equal(second.buffer, first.buffer, 'the same memory, a shorter view')
  const third = pool.take(900)
  assert.notEqual(third.buffer, first.buffer, 'taken already: not handed out twice')
  pool.giveBack(second)
  const longer = pool.take(5000)
  assert.equal(longer.length, 5000)
  assert.notEqual(longer.buffer, first.buffer, 'too short for it')
  assert.equal(pool.take(1000).buffer, first.buffer, 'still free for one that fits')
})

test('at most maxFree buffers are kept, and none longer than maxBodyBytes', () => {
  const pool = createBodyPool({ maxFree: 2, maxBodyBytes: 10_000 })
  const bodies = [pool.take(100), pool.take(100), pool.take(100)]
  for (const body of bodies) pool.giveBack(body)
  const kept = new Set([pool.take(100).buffer, pool.take(100).buffer, pool.take(100).buffer])
  assert.equal(kept.has(bodies[0]!.buffer), true)
  assert.equal(kept.has(bodies[1]!.buffer), true)
  assert.equal(kept.has(bodies[2]!.buffer), false, 'a third was not kept')

  const large = pool.take(20_000)
  assert.equal(large.length, 20_000)
  pool.giveBack(large)
  assert.notEqual(pool.take(20_000).buffer, large.buffer, 'too large to keep')
})

test('a body sent is given back only once its response has been handed to the socket (finish)', () => {
  const pool = createBodyPool()
  const raw = new EventEmitter()
  const reply = { raw } as unknown as FastifyReply
  const sent = pool.take(1000)
  pool.giveBackWhenSent(reply, sent)
  assert.notEqual(pool.take(1000).buffer, sent.buffer, 'still being written: not handed out')
  raw.emit('close')
  assert.notEqual(pool.take(1000).buffer, sent.buffer, 'a response cut short gives nothing back')
  raw.emit('finish')
  assert.equal(pool.take(1000).buffer, sent.buffer, 'handed to the socket: free again')
})
