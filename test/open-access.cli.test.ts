/**
 * AUTH_TYPE=none at start-up (docs/security.md, "AUTH_TYPE=none"): Pennon listens on loopback
 * unless HOST says otherwise and says so in one line; a HOST that is not loopback gets a warning.
 */
import assert from 'node:assert/strict'
import { networkInterfaces } from 'node:os'
import { test } from 'node:test'
import { startProcess } from '../bench/lib.ts'
import { createProcessDatabase, eventually, onEachDatabase } from './test-app.ts'

const LOOPBACK_ONLY = 'AUTH_TYPE=none: listening on 127.0.0.1 only; anyone who can reach this port is an admin.\n'
const WARNING =
  'Warning: AUTH_TYPE=none with HOST=0.0.0.0: anyone who can reach this port from another machine is an admin, ' +
  'with no credential; set HOST=127.0.0.1, or require tokens (AUTH_TYPE=open-source).\n'

// An address of this machine that is not loopback: what another machine would connect to.
const outside = Object.values(networkInterfaces())
  .flat()
  .find((address) => address?.family === 'IPv4' && !address.internal)?.address

/** Whether a connection to `address` at the server's port is taken. */
const reachable = (address: string, url: string) =>
  fetch(`http://${address}:${new URL(url).port}/health`).then(
    (response) => response.status === 200,
    () => false,
  )

onEachDatabase('AUTH_TYPE=none at start-up', (database) => {
  test('listens on 127.0.0.1 unless HOST is set, and says so in one line; a HOST that is not loopback is warned about', {
    timeout: 180_000,
  }, async (t) => {
    const storage = await createProcessDatabase(database)
    t.after(() => storage.drop())

    const local = await startProcess('src/main.ts', { ...storage.env, AUTH_TYPE: 'none', HOST: '' })
    t.after(() => local.stop())
    await eventually(() => local.output().includes(LOOPBACK_ONLY), 'the line about listening on loopback')
    assert.equal(local.output().split(LOOPBACK_ONLY).length - 1, 1, 'said once')
    assert.ok(!local.output().includes('Warning'), local.output())
    assert.equal(await reachable('127.0.0.1', local.url), true)
    if (outside !== undefined) assert.equal(await reachable(outside, local.url), false, `not reachable at ${outside}`)
    await local.stop()

    const wide = await startProcess('src/main.ts', { ...storage.env, AUTH_TYPE: 'none', HOST: '0.0.0.0' })
    t.after(() => wide.stop())
    await eventually(() => wide.output().includes(WARNING), 'the warning')
    assert.ok(!wide.output().includes(LOOPBACK_ONLY), wide.output())
    if (outside !== undefined) assert.equal(await reachable(outside, wide.url), true, `reachable at ${outside}`)
    await wide.stop()

    // With tokens required, nothing is said and every address listens, as before.
    const tokens = await startProcess('src/main.ts', { ...storage.env, HOST: '' })
    t.after(() => tokens.stop())
    if (outside !== undefined) assert.equal(await reachable(outside, tokens.url), true, `reachable at ${outside}`)
    await tokens.stop()
    assert.ok(!/AUTH_TYPE=none/.test(tokens.output()), tokens.output())
  })
})
