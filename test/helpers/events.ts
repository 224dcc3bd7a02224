/** Checks shared by the test files that read the events a request wrote. */
import assert from 'node:assert/strict'

/** The keys of every event, in the order the event log shows them. */
export const EVENT_KEYS = [
  'id',
  'type',
  'createdBy',
  'createdAt',
  'createdByUserId',
  'data',
  'preData',
  'tags',
  'featureName',
  'project',
  'environment',
  'groupType',
  'groupId',
]

/**
 * Checks that events were written by one request: each with the keys in order and a numeric id,
 * all with one groupId (a uuid) and one createdAt (ISO time), in one transaction, by one author
 * (the admin token unless told). Returns them for what is left to compare.
 */
export function checkOneRequest(events: readonly any[], createdBy = 'admin', createdByUserId = -42): readonly any[] {
  assert.ok(events.length > 0, 'expected events')
  const [first] = events
  assert.match(first.groupId, /^[0-9a-f-]{36}$/)
  assert.match(first.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
  events.forEach((event, index) => {
    assert.deepEqual(Object.keys(event), EVENT_KEYS)
    assert.equal(typeof event.id, 'number')
    assert.equal(event.createdAt, first.createdAt, `event ${index} createdAt`)
    assert.equal(event.groupId, first.groupId, `event ${index} groupId`)
    assert.deepEqual([event.createdBy, event.createdByUserId, event.groupType], [createdBy, createdByUserId, 'transaction'])
  })
  return events
}
