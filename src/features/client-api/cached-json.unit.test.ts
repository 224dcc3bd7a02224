import assert from 'node:assert/strict'
import { test } from 'node:test'
import { cachedJsonArrayWriter } from './cached-json.ts'

const items = [{ n: 'a' }, { n: 'ü' }, { n: 'c' }, { n: 'd' }, { n: 'e' }]
const writerOf = () => cachedJsonArrayWriter<{ n: string }>('{"flags":[', (item) => JSON.stringify(item))

test('a run written before the items gives the bytes and ETag of writing them all, in order', () => {
  const writer = writerOf()
  const whole = writer.write(items)
  assert.equal(whole.json.toString(), `{"flags":${JSON.stringify(items)}}`)
  for (let split = 0; split <= items.length; split++) {
    const led = writerOf().write(items.slice(split), undefined, writer.run(items.slice(0, split)))
    assert.equal(led.json.toString(), whole.json.toString(), `run of ${split}`)
    assert.equal(led.etag, whole.etag, `run of ${split}`)
  }
  assert.equal(writer.write([]).json.toString(), '{"flags":[]}')
})

test('the ETag follows the order of the items', () => {
  const writer = writerOf()
  const forward = writer.write(items.slice(1), undefined, writer.run(items.slice(0, 1)))
  const swapped = writer.write([items[0]!, ...items.slice(2)], undefined, writer.run(items.slice(1, 2)))
  assert.notEqual(forward.json.toString(), swapped.json.toString())
  assert.notEqual(forward.etag, swapped.etag)
})
