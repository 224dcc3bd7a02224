/**
 * The way back for an operator locked out of a running Pennon: the start-up names the
 * command, and `npm run admin-token` (src/cli/admin-token.ts) mints an admin token straight
 * in the database, printed once, that the running server takes at once.
 */
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { runCommand } from './run-command.ts'
import { createDb } from '../src/db/database.ts'
import { startProcess, type Server } from '../bench/lib.ts'
import { createProcessDatabase, eventually, onEachDatabase } from './test-app.ts'

const SECRET = /^ {4}(\*:\*\.[0-9a-f]{64})$/m

const adminTokenCommand = (env: Record<string, string>, args: string[] = []) => runCommand('src/cli/admin-token.ts', env, args)

const admin = (server: Server, token: string, path: string) =>
  fetch(`${server.url}/api/admin${path}`, { headers: { authorization: token } })

onEachDatabase('npm run admin-token', (database) => {
  test('locked out: the start-up says how back, the command mints a working token, printed once, with its event', {
    timeout: 120_000,
  }, async (t) => {
    const storage = await createProcessDatabase(database)
    t.after(() => storage.drop())
    const env = { ...storage.env, AUTH_FAILURES_PER_MINUTE: '0' }

    // The first start generates the admin token.
    const first = await startProcess('src/main.ts', env)
    const generated = first.output().match(SECRET)?.[1]
    assert.ok(generated, first.output())
    const client = await fetch(`${first.url}/api/admin/api-tokens`, {
      method: 'POST',
      headers: { authorization: generated, 'content-type': 'application/json' },
      body: JSON.stringify({ tokenName: 'ci', type: 'client' }),
    })
    assert.equal(client.status, 201)
    await first.stop()

    // Then it expires (as one created with an expiry does): nobody can administer Pennon.
    const db = createDb({ databaseUrl: storage.env.DATABASE_URL, databaseFile: storage.env.DATABASE_FILE })
    await db.db.updateTable('api_tokens').set({ expires_at: '2001-01-01T00:00:00.000Z' }).where('token_name', '=', 'admin').execute()
    await db.close()

    const server = await startProcess('src/main.ts', env)
    t.after(() => server.stop())
    assert.match(server.output(), /Warning: no token can administer Pennon/)
    assert.match(server.output(), /^ {4}npm run admin-token$/m)
    assert.doesNotMatch(server.output(), /\*:\*\.[0-9a-f]{64}/, 'no token is created unasked')
    assert.equal((await admin(server, generated, '/projects')).status, 401)

    const named = await adminTokenCommand(storage.env, ['recovery'])
    assert.equal(named.code, 0, named.stderr)
    assert.equal(named.stderr, '')
    const secret = named.stdout.match(SECRET)?.[1]
    assert.ok(secret, named.stdout)
    assert.match(named.stdout, /^Created admin token "recovery"\. It is shown only this once:\n/)
    // The running server takes it at once (another process's write: within milliseconds).
    await eventually(async () => (await admin(server, secret, '/api-tokens')).status === 200, 'the minted token works')
    const tokens = (await (await admin(server, secret, '/api-tokens')).json()).tokens
      .map((token: { tokenName: string }) => token.tokenName)
      .sort()
    assert.deepEqual(tokens, ['admin', 'ci', 'recovery'])
    const events = (await (await admin(server, secret, '/events')).json()).events
    const created = events.find(
      (event: { type: string; data?: { tokenName?: string } }) =>
        event.type === 'api-token-created' && event.data?.tokenName === 'recovery',
    )
    assert.deepEqual(
      [created.createdBy, created.createdByUserId, created.project, created.environment, created.data.type],
      ['system', -1337, '*', '*', 'admin'],
    )
    assert.ok(!JSON.stringify(events).includes(secret.slice(4)), 'no event holds the secret')

    // Without a name: `admin` is taken (the expired one), so `admin-2`.
    const unnamed = await adminTokenCommand(storage.env)
    assert.equal(unnamed.code, 0, unnamed.stderr)
    assert.match(unnamed.stdout, /^Created admin token "admin-2"\./)
    assert.notEqual(unnamed.stdout.match(SECRET)?.[1], secret)

    const wrong = await adminTokenCommand(storage.env, ['one', 'two'])
    assert.equal(wrong.code, 1)
    assert.equal(wrong.stdout, '')
    assert.match(
      wrong.stderr,
      /^pennon admin-token: a token name is one argument of 1 to 255 printable characters\nusage: npm run admin-token/,
    )
  })
})

test('npm run admin-token: a bad configuration, or no database file, stops it with exit code 1', async (t) => {
  const result = await adminTokenCommand({ DATABASE_URL: 'mysql://nope' })
  assert.equal(result.code, 1)
  assert.equal(result.stdout, '')
  assert.equal(result.stderr, 'pennon admin-token: DATABASE_URL must be a postgres:// or postgresql:// URL\n')

  const dir = mkdtempSync(join(tmpdir(), 'pennon-cli-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'typo.sqlite')
  const missing = await adminTokenCommand({ DATABASE_URL: '', DATABASE_FILE: file })
  assert.equal(missing.code, 1)
  assert.equal(missing.stdout, '')
  assert.equal(missing.stderr, `pennon admin-token: no database at ${file}: set DATABASE_FILE (or DATABASE_URL) as the server has it\n`)
  assert.equal(existsSync(file), false, 'no database is created')
})
