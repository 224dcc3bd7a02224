/** Service endpoints (docs/contract.md §7), configuration, and the server as a user starts it. */
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { connect } from 'node:net'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { Validator } from '@seriousme/openapi-schema-validator'
import { ConfigError, loadConfig } from '../src/config.ts'
import { call, DATABASES, useTestApp } from './test-app.ts'
import { startProcess } from '../bench/lib.ts'

test('the OpenAPI document is valid OpenAPI 3.1 and documents every admin route with security and errors', async (t) => {
  const pennon = await useTestApp(t, DATABASES[0]!)
  const response = await call(pennon, 'GET', '/docs/openapi.json', undefined, { token: null })
  assert.equal(response.status, 200)
  const validator = new Validator()
  const result = await validator.validate(response.body)
  assert.deepEqual(result.errors, undefined)
  assert.equal(result.valid, true)
  assert.equal(response.body.openapi, '3.1.0')

  const operations = Object.entries(response.body.paths as Record<string, Record<string, any>>).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
  )
  const admin = operations.filter((o) => o.path.startsWith('/api/admin'))
  assert.ok(admin.length >= 8, `admin operations documented: ${admin.length}`)
  for (const { path, method, operation } of admin) {
    const where = `${method.toUpperCase()} ${path}`
    assert.deepEqual(operation.security, [{ apiKey: [] }], `${where} declares its security`)
    assert.ok(operation.responses['401'] && operation.responses['500'], `${where} documents its errors`)
    if (operation.requestBody) assert.ok(operation.responses['415'] && operation.responses['400'], `${where} documents 400/415`)
  }
})

test('configuration is validated with a clear message', () => {
  assert.equal(loadConfig({}).port, 4242)
  assert.equal(loadConfig({}).bodyLimit, 1024 * 1024)
  assert.equal(loadConfig({}).databaseFile, './data/pennon.sqlite')
  assert.equal(loadConfig({}).patMaxLifetimeMs, 365 * 86_400_000)
  assert.equal(loadConfig({}).staleScanIntervalMs, 60_000)
  assert.equal(loadConfig({ STALE_SCAN_INTERVAL_SECONDS: '5' }).staleScanIntervalMs, 5_000)
  assert.equal(loadConfig({}).changeRequestSchedulerIntervalMs, 1000)
  assert.equal(loadConfig({ CHANGE_REQUEST_SCHEDULER_INTERVAL_MS: '250' }).changeRequestSchedulerIntervalMs, 250)
  assert.equal(loadConfig({}).integrationsSlackApiUrl, 'https://slack.com/api')
  assert.equal(loadConfig({ INTEGRATIONS_SLACK_API_URL: 'http://127.0.0.1:9/api/' }).integrationsSlackApiUrl, 'http://127.0.0.1:9/api')
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ PORT: 'eighty' }, /^PORT must be a whole number from 0 to 65535; got "eighty"$/],
    [{ PORT: '70000' }, /^PORT must be/],
    [{ DATABASE_URL: 'mysql://x' }, /^DATABASE_URL must be a postgres:\/\//],
    [{ AUTH_TYPE: 'demo' }, /^AUTH_TYPE must be "open-source" or "none"; got "demo"$/],
    [{ INIT_ADMIN_API_TOKENS: 'default:development.abc' }, /^INIT_ADMIN_API_TOKENS entry 1 must look like "\*:\*\.<secret>"/],
    [{ LOG_LEVEL: 'loud' }, /^LOG_LEVEL must be one of/],
    [{ BODY_LIMIT: '-1' }, /^BODY_LIMIT must be a whole number/],
    [{ SEGMENTS_LIMIT: '0' }, /^SEGMENTS_LIMIT must be a whole number/],
    [{ PAT_MAX_LIFETIME_DAYS: '0' }, /^PAT_MAX_LIFETIME_DAYS must be a whole number from 1 to 3650; got "0"$/],
    [{ STALE_SCAN_INTERVAL_SECONDS: '0' }, /^STALE_SCAN_INTERVAL_SECONDS must be a whole number from 1 to 86400; got "0"$/],
    [
      { CHANGE_REQUEST_SCHEDULER_INTERVAL_MS: '5' },
      /^CHANGE_REQUEST_SCHEDULER_INTERVAL_MS must be a whole number from 10 to 3600000; got "5"$/,
    ],
    [{ INTEGRATIONS_SLACK_API_URL: 'slack.com/api' }, /^INTEGRATIONS_SLACK_API_URL must be an http:\/\/ or https:\/\/ URL/],
  ]
  for (const [env, message] of cases) {
    assert.throws(
      () => loadConfig(env),
      (error: Error) => error instanceof ConfigError && message.test(error.message),
      JSON.stringify(env),
    )
  }
  // The secret of a malformed init token is never echoed back.
  assert.throws(
    () => loadConfig({ INIT_ADMIN_API_TOKENS: 'supersecret' }),
    (error: Error) => !error.message.includes('supersecret'),
  )
})

test('HOST: 0.0.0.0 by default, 127.0.0.1 by default with AUTH_TYPE=none; a HOST set is kept either way', () => {
  assert.equal(loadConfig({}).host, '0.0.0.0')
  assert.equal(loadConfig({ AUTH_TYPE: 'open-source' }).host, '0.0.0.0')
  assert.equal(loadConfig({ AUTH_TYPE: 'none' }).host, '127.0.0.1')
  assert.equal(loadConfig({ AUTH_TYPE: 'none', HOST: '' }).host, '127.0.0.1')
  assert.equal(loadConfig({ AUTH_TYPE: 'none', HOST: '0.0.0.0' }).host, '0.0.0.0')
  assert.equal(loadConfig({ AUTH_TYPE: 'none', HOST: '::1' }).host, '::1')
  assert.equal(loadConfig({ HOST: '127.0.0.1' }).host, '127.0.0.1')
})

test('ALLOWED_HOSTS: host names in lower case, `*.` for the names under one; anything else refused with a clear message', () => {
  assert.deepEqual(loadConfig({}).allowedHosts, [])
  assert.deepEqual(loadConfig({ ALLOWED_HOSTS: ' Flags.Example.com, *.corp.example ,pennon_internal,flags.example.net., ' }).allowedHosts, [
    'flags.example.com',
    '*.corp.example',
    'pennon_internal',
    'flags.example.net',
  ])
  for (const bad of [
    'https://flags.example.com',
    'flags.example.com:443',
    'flags.example.com/',
    '*',
    'a.*.example',
    'a..b',
    'flags example.com',
    '[::1]',
    '-flags.example.com',
    `${'a'.repeat(64)}.example`,
  ]) {
    assert.throws(
      () => loadConfig({ ALLOWED_HOSTS: `localhost,${bad}` }),
      (error: Error) =>
        error instanceof ConfigError &&
        error.message ===
          `ALLOWED_HOSTS entries must be host names like flags.example.com or *.example.com (no scheme, no port; IP addresses need no entry); got ${JSON.stringify(bad)}`,
      bad,
    )
  }
})

test('first start prints one admin token that works; a second start prints none; SIGTERM exits 0', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'pennon-main-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  // The compile cache goes under the temporary directory (os.tmpdir(), from TMPDIR) unless NODE_COMPILE_CACHE says otherwise.
  const env = { DATABASE_FILE: join(dir, 'pennon.sqlite'), PORT: '0', TMPDIR: dir, NODE_COMPILE_CACHE: '' }

  const first = await startProcess('src/main.ts', env)
  const output = first.output()
  const token = output.match(/\*:\*\.[0-9a-f]{64}/)?.[0]
  assert.ok(token, 'a token is printed')
  const response = await fetch(`${first.url}/api/admin/projects`, { headers: { authorization: token } })
  assert.equal(response.status, 200)
  const exited = new Promise((resolve) => first.child.on('exit', (code) => resolve(code)))
  first.child.kill('SIGTERM')
  assert.equal(await exited, 0)

  const second = await startProcess('src/main.ts', env)
  const secondOutput = second.output()
  await second.stop()
  assert.ok(!/\*:\*\.[0-9a-f]{64}/.test(secondOutput), 'no new token on the second start')
  assert.equal(secondOutput.match(/No API token existed/), null)
  // Started as `npm start` does (src/compile-cache.mjs): the modules, stripped and compiled, are kept for later starts.
  const cached = readdirSync(join(dir, 'node-compile-cache'), { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile())
  assert.ok(cached.length >= 30, `compiled modules kept: ${cached.length}`)
})

test('a bad configuration stops the server with a clear message and exit code 1', async () => {
  const child = spawn(process.execPath, ['src/main.ts'], {
    env: { ...process.env, AUTH_TYPE: 'sometimes' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr.on('data', (chunk) => (stderr += chunk))
  const code = await new Promise((resolve) => child.on('exit', resolve))
  assert.equal(code, 1)
  assert.match(stderr, /pennon: invalid configuration: AUTH_TYPE must be "open-source" or "none"; got "sometimes"/)
})

test('SIGTERM is not held by a connection that never sent a request (a browser opens them ahead of need)', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'pennon-main-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const server = await startProcess('src/main.ts', { DATABASE_FILE: join(dir, 'pennon.sqlite') })
  const silent = connect(Number(new URL(server.url).port), '127.0.0.1')
  silent.on('error', () => {})
  t.after(() => silent.destroy())
  await once(silent, 'connect')
  const closed = once(silent, 'close')
  const exitCode = new Promise((resolve) => server.child.on('exit', resolve))
  const started = performance.now()
  server.child.kill('SIGTERM')
  assert.equal(await exitCode, 0)
  await closed
  // Held, it would end only at the 10 s forced exit, with code 1.
  assert.ok(performance.now() - started < 5_000, `exited after ${Math.round(performance.now() - started)} ms`)
})

test('SIGTERM lets an in-flight request finish, refuses new connections, then exits 0', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'pennon-main-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const token = `*:*.${'a'.repeat(64)}`
  const server = await startProcess('src/main.ts', { DATABASE_FILE: join(dir, 'pennon.sqlite'), INIT_ADMIN_API_TOKENS: token })
  const port = Number(new URL(server.url).port)
  const body = JSON.stringify({ id: 'late', name: 'Arrives late' })
  const response = new Promise<string>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(
        `POST /api/admin/projects HTTP/1.1\r\nHost: x\r\nAuthorization: ${token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
      )
      setTimeout(() => {
        server.child.kill('SIGTERM')
        setTimeout(() => socket.write(body.slice(5)), 300)
      }, 200)
    })
    let received = ''
    socket.on('data', (chunk) => (received += chunk))
    socket.on('close', () => resolve(received))
    socket.on('error', reject)
  })
  const exitCode = new Promise((resolve) => server.child.on('exit', resolve))
  await new Promise((resolve) => setTimeout(resolve, 350))
  await assert.rejects(fetch(`http://127.0.0.1:${port}/health`), 'a new connection is refused while closing')
  assert.match(await response, /^HTTP\/1\.1 201 /)
  assert.equal(await exitCode, 0)
  assert.match(server.output(), /shutting down/)
})
