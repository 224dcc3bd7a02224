import assert from 'node:assert/strict'
import { test } from 'node:test'
import { contextCombinations, evaluationContext, flatEvaluationContext } from './playground-context.ts'

test('the context evaluated: text fields as sent, properties apart, environment `default` unless sent; other values left out', () => {
  assert.deepEqual(evaluationContext({ appName: 'web', userId: '1', count: 3, nested: {}, properties: { region: 'eu' } }), {
    environment: 'default',
    appName: 'web',
    userId: '1',
    properties: { region: 'eu' },
  })
  assert.deepEqual(evaluationContext({ appName: 'web', environment: 'production' }), {
    environment: 'production',
    appName: 'web',
    properties: {},
  })
  assert.deepEqual(flatEvaluationContext({ appName: 'web', region: 'eu' }), { environment: 'default', appName: 'web', region: 'eu' })
})

test('combinations: every text field and property split at commas (nothing trimmed), first field slowest, appName last', () => {
  const combinations = contextCombinations({
    userId: '1,2',
    appName: 'a',
    bad: 1,
    properties: { region: 'eu, us', empty: '' },
    sessionId: 's',
  })
  assert.equal(combinations.count, 4)
  assert.deepEqual(combinations.invalidContextProperties, ['bad'])
  assert.deepEqual(combinations.generate(), [
    { userId: '1', region: 'eu', empty: '', sessionId: 's', appName: 'a' },
    { userId: '1', region: ' us', empty: '', sessionId: 's', appName: 'a' },
    { userId: '2', region: 'eu', empty: '', sessionId: 's', appName: 'a' },
    { userId: '2', region: ' us', empty: '', sessionId: 's', appName: 'a' },
  ])
})

test("combinations: a property named as a field replaces it, in the field's place; appName is split too", () => {
  const combinations = contextCombinations({ userId: '1', properties: { userId: '2,3' }, appName: 'x,y' })
  assert.deepEqual(combinations.generate(), [
    { userId: '2', appName: 'x' },
    { userId: '2', appName: 'y' },
    { userId: '3', appName: 'x' },
    { userId: '3', appName: 'y' },
  ])
})

test('combinations are counted without being made', () => {
  const many = Array.from({ length: 100 }, (_, i) => String(i)).join(',')
  const fields = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`f${i}`, many]))
  assert.equal(contextCombinations({ appName: 'a', ...fields }).count, 1e40)
})
