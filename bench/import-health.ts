/**
 * Does a large import hold the server? Pennon listening on 127.0.0.1 (random port) in a process of
 * its own, as `npm start` runs it, on a temporary SQLite file (or a fresh PostgreSQL database
 * beside BENCH_DATABASE_URL). An Editor service account posts the largest import the limits take
 * (1,000 flags, 10,000 strategies, ~0.9 MB) while GET /health is asked again as soon as it answers;
 * then three such imports (of other flags) at once, of which one runs and two get 429. Prints each
 * import's status and time, and the slowest /health answer meanwhile: its wall time and the
 * server's main-thread CPU time while it was awaited (what the server's event loop did meanwhile;
 * on a busy machine the wall time also holds the time other processes had the cores).
 *   node bench/import-health.ts
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/import-health.ts
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { largeImport } from '../test/helpers/export-import.ts'
import { startProcess, withFreshPostgres, type Server } from './lib.ts'

const TOKEN = `*:*.${randomBytes(32).toString('hex')}`

/** Milliseconds of CPU a process's main thread (its event loop) has run. */
const mainThreadCpuMs = (pid: number): number => Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6

async function editorToken(url: string): Promise<string> {
  const headers = { 'content-type': 'application/json', authorization: TOKEN }
  const account = (await (
    await fetch(`${url}/api/admin/service-account`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ username: 'editor', name: 'editor', rootRole: 2 }),
    })
  ).json()) as { id: number }
  const token = (await (
    await fetch(`${url}/api/admin/service-account/${account.id}/token`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ description: 'bench', expiresAt: null }),
    })
  ).json()) as { secret: string }
  return token.secret
}

/** Runs `work` while /health is asked back to back; prints the slowest answer. */
async function whileHealthPolled(server: Server, work: () => Promise<string[]>): Promise<void> {
  // The connections used are opened first: one being opened waits a few turns of the server's loop.
  await Promise.all([1, 2, 3, 4].map(async () => (await fetch(`${server.url}/health`)).arrayBuffer()))
  let done = false
  const answers: Array<{ wall: number; cpu: number }> = []
  const poll = (async () => {
    while (!done) {
      const cpu = mainThreadCpuMs(server.pid)
      const started = performance.now()
      await (await fetch(`${server.url}/health`)).arrayBuffer()
      answers.push({ wall: performance.now() - started, cpu: mainThreadCpuMs(server.pid) - cpu })
    }
  })()
  const started = performance.now()
  const results = await work()
  const elapsed = performance.now() - started
  done = true
  await poll
  const most = (key: 'wall' | 'cpu') => Math.max(...answers.map((answer) => answer[key])).toFixed(0)
  console.log(
    `  ${results.join(', ')}; ${(elapsed / 1000).toFixed(2)} s in all; /health: ${answers.length} answers, slowest ${most('wall')} ms, most server CPU while one was awaited ${most('cpu')} ms`,
  )
}

async function run(label: string, env: Record<string, string>): Promise<void> {
  const server = await startProcess('src/main.ts', { ...env, INIT_ADMIN_API_TOKENS: TOKEN })
  try {
    const editor = await editorToken(server.url)
    const post = async (prefix: string) => {
      const body = JSON.stringify(largeImport(prefix))
      const started = performance.now()
      const response = await fetch(`${server.url}/api/admin/features-batch/import`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: editor },
        body,
      })
      await response.arrayBuffer()
      return `${response.status} in ${((performance.now() - started) / 1000).toFixed(2)} s (${(body.length / 1000).toFixed(0)} KB)`
    }
    console.log(`${label}: one import`)
    await whileHealthPolled(server, async () => [await post('one')])
    console.log(`${label}: three imports at once`)
    await whileHealthPolled(server, () => Promise.all(['two', 'three', 'four'].map(post)))
  } finally {
    await server.stop()
  }
}

console.log(`POST /api/admin/features-batch/import, 1,000 flags and 10,000 strategies, node ${process.version}`)
const dir = mkdtempSync(join(tmpdir(), 'pennon-bench-import-'))
try {
  await run('SQLite', { DATABASE_FILE: join(dir, 'pennon.sqlite') })
} finally {
  rmSync(dir, { recursive: true, force: true })
}
if (process.env.BENCH_DATABASE_URL)
  await withFreshPostgres(process.env.BENCH_DATABASE_URL, 'import', (url) => run('PostgreSQL', { DATABASE_URL: url }))
