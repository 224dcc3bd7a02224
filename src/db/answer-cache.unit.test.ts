import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createAnswerCache } from './answer-cache.ts'
import type { ChangeWatch } from './change-watch.ts'

/** A watch whose version the test moves by hand (`write()`). */
function watch() {
  let version = 1
  const changes: ChangeWatch & { write(): void } = { version: () => version, write: () => void version++, close: async () => {} }
  return changes
}

const bytes = (length: number, fill = 'x') => Buffer.alloc(length, fill)

test('bodies are remembered by key and version, within every limit', () => {
  const changes = watch()
  const cache = createAnswerCache(changes, { maxEntries: 3, maxBodyLength: 100, maxTotalLength: 250, maxKeyLength: 10 })
  cache.set('a', 1, bytes(100, 'a'))
  assert.deepEqual(cache.get('a', 1), bytes(100, 'a'))
  cache.set('long', 1, bytes(101))
  cache.set('key-too-long', 1, bytes(1))
  assert.equal(cache.get('long', 1), undefined, 'a body over maxBodyLength is not kept')
  assert.equal(cache.get('key-too-long', 1), undefined, 'a key over maxKeyLength is not kept')

  // 'a' (100) + 'b' (100) + 'c' (100) is over 250 bytes: the least recently used goes.
  cache.set('b', 1, bytes(100, 'b'))
  assert.deepEqual(cache.get('a', 1), bytes(100, 'a'))
  cache.set('c', 1, bytes(100, 'c'))
  assert.equal(cache.get('b', 1), undefined)
  assert.deepEqual(cache.get('a', 1), bytes(100, 'a'))
  assert.deepEqual(cache.get('c', 1), bytes(100, 'c'))

  // Four small bodies are over three entries.
  for (const key of ['d', 'e', 'f', 'g']) cache.set(key, 1, bytes(1, key))
  assert.deepEqual(
    ['a', 'c', 'd', 'e', 'f', 'g'].map((key) => cache.get(key, 1)?.toString()),
    [undefined, undefined, undefined, 'e', 'f', 'g'],
  )
})

test('an answer from another version is never used; one computed before a write is not kept', () => {
  const changes = watch()
  const cache = createAnswerCache(changes, { maxEntries: 2, maxBodyLength: 100, maxTotalLength: 100, maxKeyLength: 10 })
  cache.set('a', 1, bytes(60, 'a'))
  changes.write()
  assert.equal(cache.get('a', 2), undefined)
  cache.set('a', 2, bytes(40, 'a'))
  assert.deepEqual(cache.get('a', 2), bytes(40, 'a'))
  assert.equal(cache.get('a', 1), undefined, 'a request that began before the write is not answered from after it')

  cache.set('c', 1, bytes(1))
  assert.equal(cache.get('c', 1), undefined, 'computed at version 1, the database is at 2 now')
  assert.equal(cache.get('a', undefined), undefined, 'no version known: nothing is used')
})
