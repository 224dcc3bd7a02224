/**
 * A real Unleash 8.2 (`unleash-server` from npm, installed by `npm run test:unleash` into
 * .unleash-server/, never a dependency of Pennon) as a child process on a scratch PostgreSQL
 * database of its own, with an admin API token given at its start.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'

export const UNLEASH_DIR = join(import.meta.dirname, '..', '..', '.unleash-server', 'node_modules', 'unleash-server')
const POSTGRES = process.env.UNLEASH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432'

export interface RealUnleash {
  url: string
  token: string
  /** Its process id (bench/migrate-unleash.ts reads its CPU time). */
  pid: number
  stop(): Promise<void>
}

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  await new Promise((resolve) => server.close(resolve))
  return typeof address === 'object' && address ? address.port : 0
}

async function onServer(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: `${POSTGRES}/postgres` })
  await client.connect()
  try {
    await client.query(text)
  } finally {
    await client.end()
  }
}

/** `env`: more of its settings (bench/segment-create.ts raises its segment limit). */
export async function startUnleash(env: Record<string, string> = {}): Promise<RealUnleash> {
  if (!existsSync(join(UNLEASH_DIR, 'dist', 'server.js'))) throw new Error(`no unleash-server in ${UNLEASH_DIR}: run npm run test:unleash`)
  const database = `unleash_${process.pid}`
  await onServer(`drop database if exists ${database}`)
  await onServer(`create database ${database}`)
  const [port, token] = [await freePort(), `*:*.unleash-test-${process.pid}`]
  let output = ''
  const child: ChildProcess = spawn(process.execPath, [join(UNLEASH_DIR, 'dist', 'server.js')], {
    cwd: UNLEASH_DIR,
    env: {
      PATH: process.env.PATH,
      TZ: 'UTC',
      DATABASE_URL: `${POSTGRES}/${database}`,
      DATABASE_SSL: 'false',
      HTTP_HOST: '127.0.0.1',
      HTTP_PORT: String(port),
      INIT_ADMIN_API_TOKENS: token,
      LOG_LEVEL: 'warn',
      // Environment ("legacy") variants can only be written with this on, as in the recorded fixtures.
      UNLEASH_EXPERIMENTAL_ENABLE_LEGACY_VARIANTS: 'true',
      CHECK_VERSION: 'false',
      // Its default (15 a minute per client) would refuse the scenario's searches; Pennon has no such limit.
      SEARCH_FEATURES_RATE_LIMIT_PER_MINUTE: '100000',
      SEND_TELEMETRY: 'false',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  child.stdout!.on('data', (chunk) => (output = (output + chunk).slice(-20_000)))
  child.stderr!.on('data', (chunk) => (output = (output + chunk).slice(-20_000)))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const url = `http://127.0.0.1:${port}`
  const stop = async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM')
      await Promise.race([exited, sleep(10_000).then(() => child.kill('SIGKILL'))])
    }
    await onServer(`drop database if exists ${database} with (force)`)
  }
  const deadline = Date.now() + 120_000
  for (;;) {
    if (child.exitCode !== null) {
      await stop()
      throw new Error(`unleash-server exited (${child.exitCode}):\n${output}`)
    }
    const up = await fetch(`${url}/health`).then(
      (r) => r.ok,
      () => false,
    )
    if (up) break
    if (Date.now() > deadline) {
      await stop()
      throw new Error(`unleash-server did not answer /health within 120 s:\n${output}`)
    }
    await sleep(300)
  }
  return {
    url,
    token,
    pid: child.pid!,
    stop,
  }
}
