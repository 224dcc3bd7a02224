/**
 * A scheduled change request across a crash: the instance that would apply it SIGKILLed before its
 * time, the restarted one applies it late, once, and its events say when it was due and when it ran.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { startProcess } from '../../../bench/lib.ts'
import { createProcessDatabase, eventually, onEachDatabase } from '../../../test/test-app.ts'

const TOKEN = `*:*.${randomBytes(32).toString('hex')}`
const CR = '/api/admin/projects/default/change-requests'

async function send(base: string, method: string, path: string, body?: unknown, token = TOKEN): Promise<any> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await response.text()
  assert.ok(response.status < 300, `${method} ${path}: ${response.status} ${text}`)
  return text === '' ? undefined : JSON.parse(text)
}

async function person(base: string, username: string): Promise<string> {
  const account = await send(base, 'POST', '/api/admin/service-account', { username, name: username, rootRole: 2 })
  return (await send(base, 'POST', `/api/admin/service-account/${account.id}/token`, { description: 'test', expiresAt: null })).secret
}

onEachDatabase('scheduled change requests across a crash', (database) => {
  test('SIGKILLed before the time: the restarted instance applies it late, once', { timeout: 120_000 }, async (t) => {
    const storage = await createProcessDatabase(database)
    t.after(() => storage.drop())
    const env = { ...storage.env, INIT_ADMIN_API_TOKENS: TOKEN, AUTH_FAILURES_PER_MINUTE: '0', CHANGE_REQUEST_SCHEDULER_INTERVAL_MS: '50' }

    const first = await startProcess('src/main.ts', env)
    const author = await person(first.url, 'author')
    const reviewer = await person(first.url, 'reviewer')
    await send(first.url, 'POST', '/api/admin/projects/default/features', { name: 'checkout' })
    await send(first.url, 'PUT', '/api/admin/projects/default/environments/production/change-requests/config', {
      changeRequestsEnabled: true,
    })
    const { id } = await send(
      first.url,
      'POST',
      '/api/admin/projects/default/environments/production/change-requests',
      { feature: 'checkout', action: 'updateEnabled', payload: { enabled: true } },
      author,
    )
    await send(first.url, 'PUT', `${CR}/${id}/state`, { state: 'In review' }, author)
    await send(first.url, 'PUT', `${CR}/${id}/state`, { state: 'Approved' }, reviewer)
    const scheduledAt = new Date(Date.now() + 1000).toISOString()
    await send(first.url, 'PUT', `${CR}/${id}/state`, { state: 'Scheduled', scheduledAt }, author)
    const exited = new Promise((resolve) => first.child.on('exit', resolve))
    first.child.kill('SIGKILL')
    await exited
    await sleep(Date.parse(scheduledAt) - Date.now() + 700)

    const second = await startProcess('src/main.ts', env)
    t.after(() => second.stop())
    await eventually(async () => (await send(second.url, 'GET', `${CR}/${id}`)).state === 'Applied', 'the late apply', 15_000)
    await sleep(300)
    const { events } = await send(second.url, 'GET', '/api/admin/events')
    const applied = events.filter((e: any) => e.type === 'change-request-applied')
    assert.equal(applied.length, 1)
    assert.equal(applied[0].data.scheduledAt, scheduledAt)
    assert.ok(Date.parse(applied[0].data.appliedAt) - Date.parse(scheduledAt) >= 600, JSON.stringify(applied[0].data))
    assert.equal(applied[0].createdBy, 'author')
    assert.equal(events.filter((e: any) => e.type === 'feature-environment-enabled').length, 1)
  })
})
