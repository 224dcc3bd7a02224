/**
 * Test harness: a real app on a real, freshly migrated database — a SQLite file of
 * its own, or a PostgreSQL schema of its own when TEST_DATABASE_URL is set (migrated
 * once, and emptied back to its migrated rows for the next test: schema-pool.ts) — so
 * tests and test files run in parallel without sharing rows.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { Writable } from 'node:stream'
import { setTimeout as sleep } from 'node:timers/promises'
import { describe } from 'node:test'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { sql } from 'kysely'
import pg from 'pg'
import { buildApp } from '../src/app.ts'
import { loadConfig, type Config } from '../src/config.ts'
import { createDb, type Db, type DbOptions } from '../src/db/database.ts'
import { MIGRATION_LOCK_KEY, migrateToLatest } from '../src/db/migrate.ts'
import { createTokenService } from '../src/features/api-tokens/token-service.ts'
import { environmentExists } from '../src/features/environments/environment-store.ts'
import { lockSigningInAdmins } from '../src/features/users/user-store.ts'
import type { MetricsIngestionService } from '../src/features/metrics/metrics-ingestion-service.ts'
import type { OfrepUsage } from '../src/features/openfeature/ofrep-usage.ts'
import { keptSchemaCompilers } from './schema-cache.ts'
import { createSchemaPool, type SchemaPool } from './schema-pool.ts'

export interface TestDatabase {
  name: 'sqlite' | 'postgres'
  url?: string
}

/** SQLite always (unless TEST_SKIP_SQLITE=1, for a run that covered it already), PostgreSQL when TEST_DATABASE_URL is set. */
export const DATABASES: TestDatabase[] = [
  ...(process.env.TEST_SKIP_SQLITE === '1' && process.env.TEST_DATABASE_URL ? [] : [{ name: 'sqlite' as const }]),
  ...(process.env.TEST_DATABASE_URL ? [{ name: 'postgres' as const, url: process.env.TEST_DATABASE_URL }] : []),
]

/** Runs a suite once per database: `onEachDatabase('segments', (database) => { test(…) })`. */
export function onEachDatabase(name: string, suite: (database: TestDatabase) => void): void {
  for (const database of DATABASES) describe(`${name} [${database.name}]`, () => suite(database))
}

/** A place for one test's data: a fresh SQLite file, or a fresh PostgreSQL schema. */
export interface TestStorage {
  options: { databaseUrl?: string; databaseFile?: string; schema?: string }
  drop(): Promise<void>
}

export async function createTestStorage(database: TestDatabase): Promise<TestStorage> {
  if (database.name === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'pennon-test-'))
    return { options: { databaseFile: join(dir, 'pennon.sqlite') }, drop: async () => rmSync(dir, { recursive: true, force: true }) }
  }
  const schema = `test_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: database.url })
  await admin.connect()
  await admin.query(`create schema ${schema}`)
  await admin.end()
  return {
    options: { databaseUrl: database.url, schema },
    async drop() {
      const client = new pg.Client({ connectionString: database.url })
      await client.connect()
      // Under the migration lock: a migration elsewhere lists every schema of the database,
      // and one vanishing meanwhile would fail it.
      await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY])
      try {
        await client.query(`drop schema if exists ${schema} cascade`)
      } finally {
        await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY])
        await client.end()
      }
    },
  }
}

const schemaPools = new Map<string, SchemaPool>()

/**
 * Storage for a test app: as createTestStorage, but on PostgreSQL a schema migrated already and kept
 * for the process's next test once this one is done with it (schema-pool.ts).
 */
export async function createAppStorage(database: TestDatabase): Promise<TestStorage> {
  if (database.name === 'sqlite') return createTestStorage(database)
  let pool = schemaPools.get(database.url!)
  if (!pool) schemaPools.set(database.url!, (pool = createSchemaPool(database.url!)))
  const schema = await pool.take()
  return { options: { databaseUrl: database.url, schema }, drop: () => pool.give(schema) }
}

/**
 * A whole database for tests that start Pennon as a child process: a SQLite file in a
 * fresh folder, or a fresh PostgreSQL database on the TEST_DATABASE_URL server. Returns
 * the environment that points `node src/main.ts` at it.
 */
export async function createProcessDatabase(database: TestDatabase): Promise<{ env: Record<string, string>; drop(): Promise<void> }> {
  if (database.name === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'pennon-process-'))
    return { env: { DATABASE_FILE: join(dir, 'pennon.sqlite') }, drop: async () => rmSync(dir, { recursive: true, force: true }) }
  }
  const name = `pennon_test_${randomBytes(6).toString('hex')}`
  const run = async (statement: string) => {
    const client = new pg.Client({ connectionString: database.url })
    await client.connect()
    try {
      await client.query(statement)
    } finally {
      await client.end()
    }
  }
  await run(`create database ${name}`)
  // As scripts/test-database.ts: commits do not wait for the disk (PostgreSQL is not the one killed).
  await run(`alter database ${name} set synchronous_commit = off`)
  const url = new URL(database.url!)
  url.pathname = `/${name}`
  return { env: { DATABASE_URL: url.toString() }, drop: () => run(`drop database if exists ${name} with (force)`) }
}

export interface TestApp {
  app: FastifyInstance
  database: Db
  config: Config
  /** An admin API token (name `admin`). */
  adminToken: string
  /** Every log line the app wrote, for tests that check what is (not) logged. */
  logs: string[]
  /** The app's SDK metrics service: what it holds, and a flush on demand. */
  metrics: MetricsIngestionService
  /** What OFREP evaluations counted, not yet handed to `metrics`: a flush on demand. */
  ofrepUsage: OfrepUsage
  close(): Promise<void>
}

export interface TestAppOptions {
  env?: Record<string, string>
  /** Reuse storage another app already migrated (two instances, one database). */
  storage?: TestStorage
  /** Called with the built app before it is ready, to add hooks that observe it. */
  beforeReady?: (app: FastifyInstance) => void
  /** `{ notifyOthers: false }`: an instance that never tells the others of its commits, as if it died after each. */
  db?: Pick<DbOptions, 'notifyOthers'>
}

export async function createTestApp(database: TestDatabase, options: TestAppOptions = {}): Promise<TestApp> {
  const storage = options.storage ?? (await createAppStorage(database))
  const adminToken = `*:*.test-${randomBytes(16).toString('hex')}`
  const config = loadConfig({ INIT_ADMIN_API_TOKENS: adminToken, LOG_LEVEL: 'info', ...options.env })
  const db = createDb({ ...storage.options, ...options.db, poolSize: 4 })
  await migrateToLatest(db.db, async () => {
    await createTokenService({ db: db.db, lockSigningInAdmins, environmentExists }).bootstrap(
      config.initAdminApiTokens,
      config.authType === 'open-source',
    )
  })
  const logs: string[] = []
  const logStream = new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk))
      done()
    },
  })
  let metrics: MetricsIngestionService | undefined
  let ofrepUsage: OfrepUsage | undefined
  const app = await buildApp({
    config,
    database: db,
    logStream,
    onMetrics: (service) => (metrics = service),
    onOfrepUsage: (usage) => (ofrepUsage = usage),
    schemaController: keptSchemaCompilers,
  })
  options.beforeReady?.(app)
  await app.ready()
  let closed = false
  return {
    app,
    database: db,
    config,
    adminToken,
    logs,
    metrics: metrics!,
    ofrepUsage: ofrepUsage!,
    async close() {
      if (closed) return
      closed = true
      await app.close()
      await db.close()
      if (!options.storage) await storage.drop()
    },
  }
}

/** `createTestApp` closed automatically when the test ends. */
export async function useTestApp(
  t: { after(fn: () => Promise<void>): void },
  database: TestDatabase,
  options?: TestAppOptions,
): Promise<TestApp> {
  const testApp = await createTestApp(database, options)
  t.after(() => testApp.close())
  return testApp
}

/**
 * Two instances of one deployment: two apps on one fresh database, closed (and the database
 * dropped) when the test ends. Only the first stored its admin token, so both are called with it.
 * `firstDb`: the first one's database options (`{ notifyOthers: false }`: it never tells the second).
 */
export async function useTwoInstances(
  t: { after(fn: () => Promise<void>): void },
  database: TestDatabase,
  env?: Record<string, string>,
  firstDb?: TestAppOptions['db'],
): Promise<{ first: TestApp; second: TestApp; storage: TestStorage }> {
  const storage = await createAppStorage(database)
  const first = await createTestApp(database, { storage, ...(env ? { env } : {}), ...(firstDb ? { db: firstDb } : {}) })
  const second = await createTestApp(database, { storage, ...(env ? { env } : {}) })
  t.after(async () => {
    await first.close()
    await second.close()
    await storage.drop()
  })
  return { first, second: { ...second, adminToken: first.adminToken }, storage }
}

export interface ApiResponse {
  status: number
  headers: LightMyRequestResponse['headers']
  body: any
  text: string
}

export interface RequestOptions {
  token?: string | null
  headers?: Record<string, string>
  /** A raw body sent as is (no JSON encoding, no content type added). */
  raw?: string
}

/** Injects one request; JSON bodies get `application/json`, the admin token unless told otherwise. */
export async function call(
  testApp: Pick<TestApp, 'app' | 'adminToken'>,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH',
  url: string,
  body?: unknown,
  options: RequestOptions = {},
): Promise<ApiResponse> {
  const token = options.token === undefined ? testApp.adminToken : options.token
  const headers: Record<string, string> = { ...(token === null ? {} : { authorization: token }) }
  let payload: string | undefined
  if (options.raw !== undefined) payload = options.raw
  else if (body !== undefined) {
    payload = JSON.stringify(body)
    headers['content-type'] = 'application/json'
  }
  Object.assign(headers, options.headers)
  const response = await testApp.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload }) })
  let parsed: unknown
  try {
    parsed = response.body === '' ? undefined : JSON.parse(response.body)
  } catch {
    parsed = undefined
  }
  return { status: response.statusCode, headers: response.headers, body: parsed, text: response.body }
}

/** Error bodies carry a fresh uuid; tests compare everything else exactly. */
export function withoutId(body: { id?: unknown }): Record<string, unknown> {
  const { id, ...rest } = body
  if (typeof id !== 'string' || !/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id)) {
    throw new Error(`error body has no uuid v4 id: ${JSON.stringify(body)}`)
  }
  return rest
}

/** The full error body a test expects, `details` defaulting to the message alone. */
export function errorOf(name: string, message: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { name, message, details: [{ message }], ...extra }
}

/** Creates a service account with a root role (1 Admin, 2 Editor, 3 Viewer) and returns a token of it. */
export async function serviceAccountToken(
  testApp: TestApp,
  rootRole: 1 | 2 | 3,
  username = `sa-${randomBytes(4).toString('hex')}`,
): Promise<string> {
  const account = await call(testApp, 'POST', '/api/admin/service-account', { username, name: username, rootRole })
  if (account.status !== 201) throw new Error(`service account: ${account.status} ${account.text}`)
  const token = await call(testApp, 'POST', `/api/admin/service-account/${account.body.id}/token`, { description: 'test', expiresAt: null })
  if (token.status !== 201) throw new Error(`service account token: ${token.status} ${token.text}`)
  return token.body.secret
}

/** An API token of another kind (client, frontend, admin) created through the API. */
export async function apiToken(
  testApp: TestApp,
  type: 'admin' | 'client' | 'backend' | 'frontend',
  tokenName = `${type}-token`,
): Promise<string> {
  const response = await call(testApp, 'POST', '/api/admin/api-tokens', { tokenName, type })
  if (response.status !== 201) throw new Error(`api token: ${response.status} ${response.text}`)
  return response.body.secret
}

/** Every event in the instance, oldest first, read straight from the table. */
export async function allEvents(testApp: TestApp): Promise<any[]> {
  const rows = await testApp.database.db.selectFrom('events').select('json').orderBy('id').execute()
  return rows.map((row) => JSON.parse(row.json))
}

export { sql }

/** Waits until `check` holds, polling every 10 ms; fails, naming `what`, after `ms`. */
export async function eventually(check: () => boolean | Promise<boolean>, what: string, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: still not true after ${ms} ms`)
    await sleep(10)
  }
}
