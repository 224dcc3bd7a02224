/**
 * What Pennon keeps for the SDKs' answers: one server (as `npm start` runs it, on a fresh SQLite
 * file) with `npm run bench`'s data (as bench/sdk-memory.ts seeds it), then one request of each
 * kind — the client answer, a frontend answer on (g)'s data, one on (g620)'s — and then each SDK
 * case's load for 5 s; after each step a full collection and a heap snapshot, and what the V8
 * heap gained since the step before, by kind of object (self size), with the RSS then.
 *   node bench/sdk-retained.ts
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { heapSnapshot, type Inspector, inspectorOf, load, startProcess, warmCompileCache } from './lib.ts'
import { seedBenchData } from './seed.ts'
import { clientHeaders, recordSdkAnswers, sdkCases, seedSdkDataWithShape } from './sdk-data.ts'
import { shapeContextQuery } from './frontend-data.ts'

const TOKEN = `*:*.${randomBytes(32).toString('hex')}`
const MB = 1024 * 1024

/** The snapshot's self sizes by kind: constructor names for objects, the type for the rest (code and arrays by their name too). */
async function sizesByKind(session: Inspector): Promise<Map<string, number>> {
  const snapshot = await heapSnapshot(session)
  const fields = snapshot.snapshot.meta.node_fields
  const types = snapshot.snapshot.meta.node_types[0]
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((field) => fields.indexOf(field)) as [number, number, number]
  const sizes = new Map<string, number>()
  for (let at = 0; at < snapshot.nodes.length; at += fields.length) {
    const type = types[snapshot.nodes[at + typeAt]!]!
    const name = snapshot.strings[snapshot.nodes[at + nameAt]!]!
    const kind =
      type === 'object' || type === 'native' ? name : type === 'code' || type === 'array' ? `(${type}) ${name.slice(0, 40)}` : `(${type})`
    sizes.set(kind, (sizes.get(kind) ?? 0) + snapshot.nodes[at + sizeAt]!)
  }
  return sizes
}

await warmCompileCache()
const dir = mkdtempSync(join(tmpdir(), 'pennon-retained-'))
try {
  const env = {
    DATABASE_FILE: join(dir, 'pennon.sqlite'),
    INIT_ADMIN_API_TOKENS: TOKEN,
    SEGMENTS_LIMIT: '2000000000',
    AUTH_FAILURES_PER_MINUTE: '0',
  }
  const seeder = await startProcess('src/main.ts', env)
  await seedBenchData(seeder.url, TOKEN, env)
  const tokens = await seedSdkDataWithShape(seeder.url, TOKEN)
  await seeder.stop()
  const server = await startProcess('src/main.ts', { ...env, NODE_OPTIONS: '--inspect=127.0.0.1:0' })
  const session = await inspectorOf(server)
  const rss = () => Number(readFileSync(`/proc/${server.pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/)![1]) / 1024
  try {
    await session.call('HeapProfiler.collectGarbage')
    let before = await sizesByKind(session)
    const step = async (label: string, run: () => Promise<unknown>) => {
      await run()
      await session.call('HeapProfiler.collectGarbage')
      const after = await sizesByKind(session)
      const gained = [...after].map(([kind, size]) => [kind, size - (before.get(kind) ?? 0)] as const).sort((a, b) => b[1] - a[1])
      const total = gained.reduce((sum, [, size]) => sum + size, 0)
      console.log(
        `\n${label}: V8 heap +${(total / MB).toFixed(1)} MB (RSS then ${rss().toFixed(0)} MB, the snapshots' own memory included)`,
      )
      for (const [kind, size] of gained.slice(0, 6)) console.log(`  ${(size / MB).toFixed(2).padStart(6)} MB  ${kind}`)
      before = after
    }
    const get = (url: string, headers: Record<string, string>) => fetch(url, { headers }).then((response) => response.arrayBuffer())
    await step('one client answer (1,000 flags × 3 strategies)', () =>
      get(`${server.url}/api/client/features`, clientHeaders(tokens.client)),
    )
    await step("one frontend answer on (g)'s data", () => get(`${server.url}/api/frontend?userId=u1`, { authorization: tokens.frontend }))
    await step("one frontend answer on (g620)'s data", () =>
      get(`${server.url}/api/frontend?${shapeContextQuery()}`, { authorization: tokens.shapeFrontend! }),
    )
    const answers = await recordSdkAnswers(server.url, tokens)
    for (const sdkCase of sdkCases(server.url, tokens, answers))
      await step(`${sdkCase.label}, 5 s`, () => load({ ...sdkCase.options, seconds: 5 }, server.pid))
  } finally {
    session.close()
    await server.stop()
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
