/**
 * What (g) costs without HTTP: the flags of the SDK cases (seeded as `npm run bench` seeds them,
 * read once from GET /api/client/features), then, in this process, the frontend service's answer
 * for 1,000 random contexts (the query of (g), parsed as the route parses it), in CPU µs per
 * context: the whole answer (evaluation, JSON, ETag), the evaluation alone (evaluateAll over the
 * 1,000 flags), JSON.stringify of the same toggles (how the answer was written before), and
 * OpenFeature's bulk answer for the same context (every flag decided and written, with its ETag).
 * Median of 12 rounds. Runs with the node flags of `npm start`. With BENCH_PAYLOAD_FILE, the
 * flags are read from that file when it exists, and written there after seeding when not.
 * With `g620`, the (g620) case's data instead (bench/frontend-data.ts, issue 35's shape: built
 * in this process, no server) and its contexts.
 *   node bench/frontend-evaluate.ts          # (g)'s data
 *   node bench/frontend-evaluate.ts g620     # (g620)'s
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { median, PENNON_NODE_ENV, PENNON_NODE_FLAGS, startProcess, warmCompileCache } from './lib.ts'
import { seedBenchData } from './seed.ts'
import { clientHeaders, randomContextQuery, seedSdkData } from './sdk-data.ts'
import { createFrontendService, contextFrom } from '../src/features/client-api/frontend-service.ts'
import { createBodyPool } from '../src/http/body-pool.ts'
import type { ClientFeaturesService } from '../src/features/client-api/client-features-service.ts'
import type { ClientFeature, ClientSegment, EnvironmentFlags } from '../src/features/client-api/client-features-store.ts'
import { createEvaluator } from '../src/features/evaluation/evaluate.ts'
import { answersWriter, bulkTail } from '../src/features/openfeature/ofrep-answers.ts'
import { frontendShapePayload, shapeContextQuery } from './frontend-data.ts'

if (!process.execArgv.includes('--no-maglev')) {
  const run = spawnSync(process.execPath, [...PENNON_NODE_FLAGS, ...process.execArgv, import.meta.filename, ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, ...PENNON_NODE_ENV },
  })
  process.exit(run.status ?? 1)
}

const TOKEN = `*:*.${randomBytes(32).toString('hex')}`
const payloadFile = process.env.BENCH_PAYLOAD_FILE
const shape = process.argv[2] === 'g620'
let payload: { features: ClientFeature[]; segments: ClientSegment[] }
if (shape) payload = frontendShapePayload() as unknown as typeof payload
else if (payloadFile && existsSync(payloadFile)) payload = JSON.parse(readFileSync(payloadFile, 'utf8'))
else {
  const dir = mkdtempSync(join(tmpdir(), 'pennon-frontend-evaluate-'))
  try {
    await warmCompileCache()
    const env = { DATABASE_FILE: join(dir, 'pennon.sqlite') }
    const server = await startProcess('src/main.ts', {
      ...env,
      INIT_ADMIN_API_TOKENS: TOKEN,
      SEGMENTS_LIMIT: '2000000000',
      AUTH_FAILURES_PER_MINUTE: '0',
    })
    try {
      await seedBenchData(server.url, TOKEN, env)
      const tokens = await seedSdkData(server.url, TOKEN)
      payload = await (await fetch(`${server.url}/api/client/features`, { headers: clientHeaders(tokens.client) })).json()
    } finally {
      await server.stop()
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  if (payloadFile) writeFileSync(payloadFile, JSON.stringify(payload))
}

const flags: EnvironmentFlags = {
  environment: 'development',
  features: payload.features,
  segments: new Map(payload.segments.map((s) => [s.id, s])),
  revisionId: 0,
}
const clientFeatures = {
  environmentFlags: () => ({ version: 1, flags: Promise.resolve(flags) }),
  visible: (read: EnvironmentFlags) => read.features,
} as unknown as ClientFeaturesService
// Each body given back at once, as the server gives it back once sent.
const bodies = createBodyPool()
const service = createFrontendService({ clientFeatures, bodies })
const evaluator = createEvaluator({ features: payload.features, segments: payload.segments })
const scope = { environment: 'development', projects: ['default'] }
const contexts = Array.from({ length: 1000 }, () =>
  contextFrom(Object.fromEntries(new URLSearchParams(shape ? shapeContextQuery() : randomContextQuery())), '127.0.0.1'),
)
const toggles = contexts.map((context) => evaluator.evaluateAll(context))

const cpuMicros = () => {
  const { user, system } = process.cpuUsage()
  return user + system
}
const ofrep = answersWriter(payload.features, evaluator.switchedOff, bodies)
const noStream = bulkTail(undefined)
const rounds: Record<'answer' | 'evaluation' | 'stringify' | 'ofrep', number[]> = { answer: [], evaluation: [], stringify: [], ofrep: [] }
for (let round = 0; round < 12; round++) {
  let started = cpuMicros()
  for (const context of contexts) bodies.giveBack((await service.evaluate(scope, context)).body)
  rounds.answer.push((cpuMicros() - started) / contexts.length)
  started = cpuMicros()
  for (const context of contexts) evaluator.evaluateAll(context)
  rounds.evaluation.push((cpuMicros() - started) / contexts.length)
  started = cpuMicros()
  for (const list of toggles) Buffer.from(JSON.stringify({ toggles: list }))
  rounds.stringify.push((cpuMicros() - started) / contexts.length)
  started = cpuMicros()
  for (const context of contexts) bodies.giveBack(ofrep.bulk(evaluator.decideSwitchedOn(context), noStream).json)
  rounds.ofrep.push((cpuMicros() - started) / contexts.length)
}
const enabled = toggles.reduce((sum, list) => sum + list.length, 0) / toggles.length
console.log(
  `${payload.features.length} flags, ${enabled.toFixed(0)} enabled per context on average; CPU µs per context (median of 12 rounds of ${contexts.length}): ` +
    `whole answer ${median(rounds.answer).toFixed(0)}, evaluateAll alone ${median(rounds.evaluation).toFixed(0)}, ` +
    `JSON.stringify of its toggles ${median(rounds.stringify).toFixed(0)}; OpenFeature's bulk answer (every flag) ${median(rounds.ofrep).toFixed(0)}; node ${process.version}`,
)
