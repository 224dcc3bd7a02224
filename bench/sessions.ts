/**
 * People on a real listening server (autocannon, 10 connections, 2 s warm-up, BENCH_RUNS ×
 * BENCH_SECONDS):
 *   (k) POST /auth/simple/login with the right password: sign-ins per second, bounded on purpose
 *       by scrypt (docs/security.md: two hashes at once, about 0.18 s of a core each), from 2
 *       connections (one address holds at most 4 places of the hashing queue: more would see 429);
 *   (l) GET /api/admin/projects signed in with a session cookie (a session lookup per request),
 *   (l′) the same with an admin token (its principal remembered): what a session costs a read.
 *   node bench/sessions.ts
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/sessions.ts
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import {
  measure,
  printMarkdownTable,
  ROW_HEADER,
  rowCells,
  RUNS,
  SECONDS,
  startProcess,
  warmCompileCache,
  WARMUP_SECONDS,
  withFreshPostgres,
  type Row,
} from './lib.ts'

const TOKEN = `*:*.${randomBytes(32).toString('hex')}`
const PASSWORD = 'Bench-Passw0rd-2026'

async function benchPennon(databaseName: string, env: Record<string, string>): Promise<Row[]> {
  const server = await startProcess('src/main.ts', { ...env, INIT_ADMIN_API_TOKENS: TOKEN, AUTH_FAILURES_PER_MINUTE: '0' })
  try {
    const json = { 'content-type': 'application/json' }
    const created = await fetch(`${server.url}/api/admin/user-admin`, {
      method: 'POST',
      headers: { ...json, authorization: TOKEN },
      body: JSON.stringify({ email: 'bench@example.com', rootRole: 2, password: PASSWORD }),
    })
    if (created.status !== 201) throw new Error(`user: ${created.status} ${await created.text()}`)
    const login = JSON.stringify({ username: 'bench@example.com', password: PASSWORD })
    const signIn = await measure(
      `(k) POST /auth/simple/login, the right password [${databaseName}]`,
      'k',
      // One address holds at most 4 places of the hashing queue (docs/security.md): 2 connections keep both hashes busy without a 429.
      { url: `${server.url}/auth/simple/login`, method: 'POST', headers: json, body: login, connections: 2 },
      server,
    )
    // Signed in after (k): a user holds 20 sessions at most, and (k) started many more. The hashes
    // (k) left queued finish first (until then this address's places are taken: 429).
    let signedIn = await fetch(`${server.url}/auth/simple/login`, { method: 'POST', headers: json, body: login })
    for (let tries = 0; signedIn.status === 429 && tries < 30; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 1_000))
      signedIn = await fetch(`${server.url}/auth/simple/login`, { method: 'POST', headers: json, body: login })
    }
    if (signedIn.status !== 200) throw new Error(`sign-in after (k): ${signedIn.status} ${await signedIn.text()}`)
    const cookie = String(signedIn.headers.get('set-cookie')).split(';')[0]!
    const rows = [
      signIn,
      await measure(
        `(l) GET /api/admin/projects with a session cookie [${databaseName}]`,
        'l',
        { url: `${server.url}/api/admin/projects`, headers: { cookie } },
        server,
      ),
      await measure(
        `(l′) GET /api/admin/projects with an admin token [${databaseName}]`,
        'l-token',
        { url: `${server.url}/api/admin/projects`, headers: { authorization: TOKEN } },
        server,
      ),
    ]
    return rows
  } finally {
    await server.stop()
  }
}

console.log(`Pennon people benchmark: ${WARMUP_SECONDS} s warm-up, ${RUNS} run(s) of ${SECONDS} s, 10 connections; node ${process.version}`)
await warmCompileCache()
const rows: Row[] = []
const dir = mkdtempSync(join(tmpdir(), 'pennon-bench-sessions-'))
try {
  rows.push(...(await benchPennon('SQLite', { DATABASE_FILE: join(dir, 'pennon.sqlite') })))
  if (process.env.BENCH_DATABASE_URL)
    rows.push(
      ...(await withFreshPostgres(process.env.BENCH_DATABASE_URL, 'sessions', (url) => benchPennon('PostgreSQL', { DATABASE_URL: url }))),
    )
} finally {
  rmSync(dir, { recursive: true, force: true })
}
printMarkdownTable(
  [...ROW_HEADER, 'unexpected status'],
  rows.map((row) => [...rowCells(row), String(row.unexpected + row.errors)]),
)
if (rows.some((row) => row.unexpected + row.errors > 0)) process.exitCode = 1
