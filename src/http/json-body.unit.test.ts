import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { findHostileInput, hasHostileInput, locateHostileInput, mayHoldHostileInput } from './json-body.ts'

// Strings a body may hold: any, lone surrogates and NUL included, and `__proto__` as a key.
const text = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('\u0000', '\ud800', 'a\udc00b', '__proto__', 'ok'))
const documents = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.double(),
    text,
    fc.array(tie('value'), { maxLength: 4 }),
    tie('object'),
  ),
  // Own properties, as JSON.parse makes them (a `__proto__` key included).
  object: fc.array(fc.tuple(text, tie('value')), { maxLength: 4 }).map((entries) => {
    const object: Record<string, unknown> = {}
    for (const [key, value] of entries) Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true })
    return object
  }),
})).value

test('the quick check refuses exactly the documents the search finds something in', () => {
  fc.assert(
    fc.property(documents, (document) => {
      const found = locateHostileInput(document, '/body')
      assert.equal(hasHostileInput(document), found !== undefined)
      assert.equal(findHostileInput(document, '/body')?.message, found?.message)
    }),
    { numRuns: 3000 },
  )
})

test('a JSON text the quick look at its characters clears parses into nothing hostile', () => {
  fc.assert(
    fc.property(documents, (document) => {
      const text = JSON.stringify(document)
      if (!mayHoldHostileInput(text)) assert.equal(findHostileInput(JSON.parse(text), '/body'), undefined, text)
    }),
    { numRuns: 3000 },
  )
  for (const text of ['"\\u0000"', '{"a":"\\ud800"}', '{"__proto__":1}', '{"\\u005f_proto__":1}', '"\ud800"'])
    assert.equal(mayHoldHostileInput(text), true, text)
  assert.equal(mayHoldHostileInput('{"appName":"shop","bucket":{"toggles":{"a":{"yes":1}}}}'), false)
})

test('the place is still named', () => {
  assert.equal(
    findHostileInput({ a: [{ ok: 1 }, { 'b/c': 'x\u0000' }] }, '/body')?.message,
    'The `/body/a/1/b~1c` property contains a NUL character or an unpaired surrogate, which cannot be stored. You sent "x\\u0000".',
  )
  assert.equal(
    findHostileInput({ toggles: JSON.parse('{"__proto__": {}}') }, '/body')?.message,
    'The `/body/toggles/__proto__` property is not allowed.',
  )
  assert.equal(findHostileInput({ toggles: { a: { yes: 1 } } }, '/body'), undefined)
})
