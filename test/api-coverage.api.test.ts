/**
 * The admin API against the reference's list of operations (scripts/api-table.ts): every operation
 * of Unleash 8.2 is served but the few docs/api.md lists as not served, docs/api.md's route table is
 * what the script generates now, and its notes name real routes.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { before, test } from 'node:test'
import {
  API_DOC,
  DIFFERS,
  NOT_SERVED,
  type Operation,
  operationKey,
  operationsOf,
  pennonDocument,
  referenceOperations,
  routeTable,
  withTable,
} from '../scripts/api-table.ts'

let pennon: Operation[]
const reference = referenceOperations()
before(async () => {
  pennon = operationsOf(await pennonDocument())
})

test('docs/api.md’s route table is up to date (run node scripts/api-table.ts)', () => {
  const markdown = readFileSync(API_DOC, 'utf8')
  assert.equal(markdown, withTable(markdown, routeTable(pennon, reference)))
})

test('every note of the route table is about a route Pennon serves, and each not-served one is the reference’s', () => {
  const served = new Set(pennon.map((o) => operationKey(o.method, o.path)))
  const known = new Set(reference.map((o) => operationKey(o.method, o.path)))
  assert.deepEqual(
    Object.keys(DIFFERS).filter((key) => !served.has(key)),
    [],
  )
  assert.deepEqual(
    Object.keys(NOT_SERVED).filter((key) => served.has(key) || !known.has(key)),
    [],
  )
})

test('every operation of Unleash 8.2 is served, but those docs/api.md lists as not served', () => {
  const served = new Set(pennon.map((o) => operationKey(o.method, o.path)))
  const missing = reference
    .filter((o) => !served.has(operationKey(o.method, o.path)) && !(operationKey(o.method, o.path) in NOT_SERVED))
    .map((o) => `${o.method} ${o.path} (${o.summary})`)
  assert.deepEqual(missing, [], `${missing.length} operations of Unleash 8.2 are not served:\n${missing.join('\n')}`)
})
