/**
 * `npm run admin-user -- <email>` (src/cli/admin-user.ts): the first Admin user, and the way back
 * from a lost admin password. The start-up names the command; the link it prints sets a password
 * that a running server takes at once.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { runCommand } from './run-command.ts'
import { startProcess } from '../bench/lib.ts'
import { createProcessDatabase, onEachDatabase } from './test-app.ts'
import { createDb } from '../src/db/database.ts'
import { migrateToLatest } from '../src/db/migrate.ts'
import { createSettingsStore } from '../src/features/maintenance/settings-store.ts'

const adminUserCommand = (env: Record<string, string>, args: string[] = []) => runCommand('src/cli/admin-user.ts', env, args)

const LINK = /^ {4}http:\/\/127\.0\.0\.1:[0-9]+\/#\/reset-password\?token=([0-9a-f]{64})$/m

onEachDatabase('npm run admin-user', (database) => {
  test('creates an Admin user with a one-time link; run again for a known user, it makes a reset link', { timeout: 120_000 }, async (t) => {
    const storage = await createProcessDatabase(database)
    t.after(() => storage.drop())
    const server = await startProcess('src/main.ts', storage.env)
    t.after(() => server.stop())
    assert.match(server.output(), /^ {4}npm run admin-user -- you@example\.com$/m)

    const setPassword = async (stdout: string, password: string) => {
      const token = stdout.match(LINK)?.[1]
      assert.ok(token, stdout)
      const set = await fetch(`${server.url}/auth/reset/password`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token, password }),
      })
      assert.equal(set.status, 200)
    }
    const signIn = (password: string) =>
      fetch(`${server.url}/auth/simple/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'ops@example.com', password }),
      })

    const created = await adminUserCommand(storage.env, ['Ops@Example.com'])
    assert.equal(created.code, 0, created.stderr)
    assert.match(created.stdout, /^Created Admin user ops@example\.com\. To set their password, open this link \(valid 7 days, once\):$/m)
    await setPassword(created.stdout, 'First-Passw0rd-1')
    const session = await signIn('First-Passw0rd-1')
    assert.equal(session.status, 200)
    const cookie = String(session.headers.get('set-cookie')).split(';')[0]!
    const me = await fetch(`${server.url}/api/admin/me`, { headers: { cookie } })
    assert.deepEqual((await me.json()).rootRole, 'Admin')

    // The password is lost: the operator makes a reset link.
    const reset = await adminUserCommand(storage.env, ['ops@example.com'])
    assert.equal(reset.code, 0, reset.stderr)
    assert.match(
      reset.stdout,
      /^User ops@example\.com exists \(root role Admin\)\. To set a new password, open this link \(valid 24 hours, once\):$/m,
    )
    await setPassword(reset.stdout, 'Second-Passw0rd-2')
    assert.equal((await signIn('First-Passw0rd-1')).status, 401)
    assert.equal((await signIn('Second-Passw0rd-2')).status, 200)
    assert.equal((await fetch(`${server.url}/api/admin/me`, { headers: { cookie } })).status, 401, 'a new password ends the old sessions')

    const usage = await adminUserCommand(storage.env, [])
    assert.deepEqual(
      [usage.code, usage.stdout],
      [1, 'usage: npm run admin-user -- <email>   (DATABASE_URL or DATABASE_FILE as for npm start)\n'],
    )
    const bad = await adminUserCommand(storage.env, ['not-an-email'])
    assert.deepEqual(
      [bad.code, bad.stderr],
      [1, 'pennon admin-user: The `/body/email` property must be an email address. You sent "not-an-email".\n'],
    )
  })

  test('turns password sign-in on again when single sign-on had turned it off', { timeout: 120_000 }, async (t) => {
    const storage = await createProcessDatabase(database)
    t.after(() => storage.drop())
    const db = createDb({ databaseFile: storage.env.DATABASE_FILE, databaseUrl: storage.env.DATABASE_URL })
    t.after(() => db.close())
    await migrateToLatest(db.db)
    const settings = createSettingsStore(db.db)
    await settings.put('unleash.enterprise.auth.oidc', {
      enabled: true,
      discoverUrl: 'https://login.example.com',
      clientId: 'pennon',
      secret: 'x',
    })
    await settings.put('unleash.auth.simple', { disabled: true })

    const created = await adminUserCommand(storage.env, ['ops@example.com'])
    assert.equal(created.code, 0, created.stderr)
    assert.match(
      created.stdout,
      /^Password sign-in was turned off \(single sign-on only\): it is on again\.\nCreated Admin user ops@example\.com\./,
    )
    assert.deepEqual(await settings.read('unleash.auth.simple'), { disabled: false })
    const events = await db.db.selectFrom('events').select('json').orderBy('id').execute()
    const turnedOn = events.map((row) => JSON.parse(row.json)).find((event) => event.type === 'setting-updated')
    assert.deepEqual(
      [turnedOn.createdBy, turnedOn.data, turnedOn.preData],
      ['system', { id: 'unleash.auth.simple', disabled: false }, { disabled: true }],
    )
    // Once on, the command says nothing of it.
    const again = await adminUserCommand(storage.env, ['ops@example.com'])
    assert.match(again.stdout, /^User ops@example\.com exists/)
  })
})
