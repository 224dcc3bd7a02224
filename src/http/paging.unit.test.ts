import assert from 'node:assert/strict'
import { test } from 'node:test'
import { AppError } from './errors.ts'
import { parsePaging } from './paging.ts'

const clamp = { defaultLimit: 50, maxLimit: 100, overMax: 'clamp' } as const
const refuse = { defaultLimit: 100, maxLimit: 1000, overMax: 'refuse' } as const

const refusal = (query: { offset?: string; limit?: string }, rules: typeof clamp | typeof refuse) => {
  try {
    parsePaging(query, rules)
  } catch (error) {
    assert.ok(error instanceof AppError)
    return error.message
  }
  assert.fail('accepted')
}

test('defaults, and what is sent', () => {
  assert.deepEqual(parsePaging({}, clamp), { offset: 0, limit: 50 })
  assert.deepEqual(parsePaging({ offset: '20', limit: '7' }, refuse), { offset: 20, limit: 7 })
})

test('a limit over the largest page is taken as it (clamp) or refused (refuse)', () => {
  assert.deepEqual(parsePaging({ limit: '1000' }, clamp), { offset: 0, limit: 100 })
  assert.equal(refusal({ limit: '1001' }, refuse), 'The `/query/limit` parameter must be a whole number from 1 to 1000. You sent "1001".')
  assert.equal(refusal({ limit: 'ten' }, clamp), 'The `/query/limit` parameter must be a whole number of at least 1. You sent "ten".')
})

test('one message for a bad offset, whatever the list; offset is checked first', () => {
  for (const rules of [clamp, refuse]) {
    assert.equal(
      refusal({ offset: '-1', limit: '0' }, rules),
      'The `/query/offset` parameter must be a whole number of at least 0. You sent "-1".',
    )
    assert.equal(
      refusal({ offset: '1000000000' }, rules),
      'The `/query/offset` parameter must be a whole number of at least 0. You sent "1000000000".',
    )
  }
})
