/**
 * The console shows a Revert button for the event types the server reverts, asking the permission
 * the server asks (console/assets/js/revertible.js): the two tables must not drift apart.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { REVERTIBLE as CONSOLE_REVERTIBLE } from '../console/assets/js/revertible.js'
import { REVERTIBLE } from '../src/features/revert/revert-diff.ts'

test("the console's revertible event types and their permissions are the server's", () => {
  assert.deepEqual({ ...CONSOLE_REVERTIBLE }, { ...REVERTIBLE })
})
