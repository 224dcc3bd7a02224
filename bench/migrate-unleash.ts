/**
 * `npm run bench:migrate-unleash`: how long `npm run migrate` takes from a REAL Unleash 8.2 with
 * 1,000 flags. Needs `unleash-server` installed in .unleash-server/ (as `npm run test:unleash`
 * installs it; not a dependency of Pennon, so not part of `npm run bench`).
 *
 * Starts Unleash (test/unleash/unleash-server.ts: a child process on a scratch PostgreSQL
 * database), writes through its admin API, 8 requests in flight, what
 * src/features/migration/migration-1000.api.test.ts imports between two Pennons: 1,000 flags,
 * each with a flexible rollout in development and production (a quarter with a constraint on a
 * field with legal values, a fifth with strategy variants), switched on in two thirds of each
 * environment, a tenth tagged. Then, into a fresh Pennon (`npm start`'s process, on a temporary
 * SQLite file, then on a scratch PostgreSQL database made beside UNLEASH_POSTGRES_URL's and
 * dropped), the migrate CLI as a child process, timed: the first run, a second (which must
 * change nothing), and `--verify` with its default contexts. Prints the times and the CPU seconds
 * each process spent; exits 1 if a second run changed something or the verification is not 100%.
 *   npm run bench:migrate-unleash
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { createAdminClient, seg, type AdminClient } from '../src/features/migration/admin-client.ts'
import { startUnleash, UNLEASH_DIR, type RealUnleash } from '../test/unleash/unleash-server.ts'
import { cpuSeconds, printMarkdownTable, startProcess, warmCompileCache, withFreshPostgres } from './lib.ts'

const FLAGS = 1000
const IN_FLIGHT = 8
const ENVIRONMENTS = ['development', 'production'] as const
const TOKEN = `*:*.${randomBytes(32).toString('hex')}`
const POSTGRES = process.env.UNLEASH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432'
const { scripts } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> }

if (!existsSync(join(UNLEASH_DIR, 'dist', 'server.js'))) {
  // The install step of test:unleash, so the two never differ.
  const install = scripts['test:unleash']!.split(' && ')[0]
  console.error(`No unleash-server in ${UNLEASH_DIR}. Install it first (about a minute; not a dependency of Pennon):\n  ${install}`)
  process.exit(1)
}

// What `npm run migrate` runs, without npm's own start.
const [node, cliScript] = scripts.migrate!.split(' ')
if (node !== 'node' || !cliScript) throw new Error(`unexpected migrate script: ${scripts.migrate}`)

const flagName = (i: number) => `bulk.flag-${String(i).padStart(4, '0')}`

/** Runs `work` on 0…count-1, `IN_FLIGHT` at a time. */
async function inParallel(count: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0
  const worker = async () => {
    while (next < count) await work(next++)
  }
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker))
}

/** The 1,000 flags through Unleash's admin API; the same shape as migration-1000.api.test.ts's. */
async function seed(api: AdminClient): Promise<void> {
  await api.send('POST', '/api/admin/context', {
    name: 'region',
    description: 'where',
    stickiness: false,
    legalValues: [{ value: 'eu' }, { value: 'us' }],
  })
  await inParallel(FLAGS, async (i) => {
    const name = flagName(i)
    const flag = `/api/admin/projects/default/features/${seg(name)}`
    await api.send('POST', '/api/admin/projects/default/features', {
      name,
      type: ['release', 'experiment', 'operational'][i % 3],
      description: `flag ${name}`,
      impressionData: i % 7 === 0,
    })
    for (const [e, environment] of ENVIRONMENTS.entries()) {
      await api.send('POST', `${flag}/environments/${environment}/strategies`, {
        name: 'flexibleRollout',
        parameters: { rollout: String((i * 13) % 101), stickiness: 'userId', groupId: name },
        constraints: i % 4 === 0 ? [{ contextName: 'region', operator: 'IN', values: ['eu', 'us'] }] : [],
        variants:
          i % 5 === 0
            ? [
                { name: 'a', weight: 500, weightType: 'variable', stickiness: 'userId', payload: { type: 'string', value: 'A' } },
                { name: 'b', weight: 500, weightType: 'variable', stickiness: 'userId' },
              ]
            : [],
      })
      if ((i + e) % 3 !== 0) await api.send('POST', `${flag}/environments/${environment}/on`)
    }
    if (i % 10 === 0) await api.send('POST', `/api/admin/features/${seg(name)}/tags`, { type: 'simple', value: 'bulk' })
  })
}

interface Run {
  code: number
  out: string
  err: string
  seconds: number
  /** The CLI's own CPU seconds (its /proc entry, read every 50 ms until it exits). */
  cpu: number
  /** Its steps: `start` at 0, then each progress line it printed ("migrating flags of project default…", "verifying production…") at its second. */
  steps: Array<[string, number]>
}

/** `tokens`: the admin tokens, in the environment as an operator gives them. */
function cli(argv: string[], tokens: Record<string, string>): Promise<Run> {
  const started = performance.now()
  const child = spawn(process.execPath, [cliScript!, ...argv], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...tokens } })
  let [out, err, cpu] = ['', '', 0]
  const steps: Array<[string, number]> = [['start', 0]]
  const sample = setInterval(() => {
    try {
      cpu = cpuSeconds(child.pid!)
    } catch {
      // exited between two samples
    }
  }, 50)
  child.stdout.on('data', (chunk) => (out += chunk))
  child.stderr.on('data', (chunk) => {
    err += chunk
    for (const line of String(chunk).split('\n')) {
      const step = line.match(/^(?:migrating|verifying) (.+)…$/)?.[1]
      if (step) steps.push([step, (performance.now() - started) / 1000])
    }
  })
  return new Promise((resolve) => {
    child.once('close', (code) => {
      clearInterval(sample)
      resolve({ code: code ?? -1, out, err, cpu, seconds: (performance.now() - started) / 1000, steps })
    })
  })
}

const flagsRow = (out: string) =>
  out
    .match(/\nflags\s+(\d+)\s+(\d+)\s+(\d+)\n/)
    ?.slice(1)
    .map(Number)

interface Figures {
  label: string
  first: Run
  second: Run
  verify: Run
  /** CPU seconds of the Pennon server and of Unleash during each run. */
  serverCpu: { first: number; second: number; verify: number }
  unleashCpu: { first: number; second: number; verify: number }
  checks: string
  problems: string[]
}

async function migrateInto(label: string, env: Record<string, string>, unleash: RealUnleash): Promise<Figures> {
  const pennon = await startProcess('src/main.ts', { ...env, INIT_ADMIN_API_TOKENS: TOKEN })
  try {
    const args = ['--from', unleash.url, '--to', pennon.url]
    const tokens = { MIGRATE_FROM_TOKEN: unleash.token, MIGRATE_TO_TOKEN: TOKEN }
    const problems: string[] = []
    const timed = async (argv: string[]) => {
      const [server, source] = [cpuSeconds(pennon.pid), cpuSeconds(unleash.pid)]
      const run = await cli(argv, tokens)
      return { run, server: cpuSeconds(pennon.pid) - server, unleash: cpuSeconds(unleash.pid) - source }
    }
    const first = await timed(args)
    if (first.run.code !== 0 || !/\nMigrated\.\n/.test(first.run.out) || String(flagsRow(first.run.out)) !== `${FLAGS},0,0`) {
      problems.push(`${label}: the first run did not create the ${FLAGS} flags (exit ${first.run.code}):\n${first.run.out}${first.run.err}`)
    }
    const second = await timed(args)
    if (
      second.run.code !== 0 ||
      !/Nothing changed: the target already had everything\./.test(second.run.out) ||
      String(flagsRow(second.run.out)) !== `0,0,${FLAGS}`
    ) {
      problems.push(`${label}: the second run changed something (exit ${second.run.code}):\n${second.run.out}${second.run.err}`)
    }
    const verify = await timed([...args, '--verify'])
    const agreement = verify.run.out.match(/Agreement: ([\d.]+)% of (\d+) checks \((\d+) differences, (\d+) known\)\./)
    if (verify.run.code !== 0 || agreement?.[1] !== '100.00') {
      problems.push(
        `${label}: the verification is not 100% (exit ${verify.run.code}):\n${verify.run.out.slice(-3000)}${verify.run.err.slice(-2000)}`,
      )
    }
    return {
      label,
      first: first.run,
      second: second.run,
      verify: verify.run,
      serverCpu: { first: first.server, second: second.server, verify: verify.server },
      unleashCpu: { first: first.unleash, second: second.unleash, verify: verify.unleash },
      checks: agreement
        ? `${Number(agreement[2]).toLocaleString('en')} checks, ${agreement[3]} differences, ${agreement[4]} known`
        : 'no agreement line',
      problems,
    }
  } finally {
    await pennon.stop()
  }
}

const s = (seconds: number) => `${seconds.toFixed(1)} s`

console.log(
  `npm run migrate from a real Unleash 8.2 (${UNLEASH_DIR}), ${FLAGS.toLocaleString('en')} flags in ${ENVIRONMENTS.join(' and ')}, node ${process.version}`,
)
await warmCompileCache()
let started = performance.now()
const unleash = await startUnleash()
const figures: Figures[] = []
try {
  console.log(`Unleash started on a fresh database in ${s((performance.now() - started) / 1000)}`)
  started = performance.now()
  await seed(createAdminClient(unleash.url, unleash.token))
  console.log(
    `${FLAGS} flags written through its admin API (${IN_FLIGHT} requests in flight) in ${s((performance.now() - started) / 1000)}`,
  )

  const dir = mkdtempSync(join(tmpdir(), 'pennon-bench-migrate-'))
  try {
    figures.push(await migrateInto('SQLite', { DATABASE_FILE: join(dir, 'pennon.sqlite') }, unleash))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  figures.push(
    await withFreshPostgres(`${POSTGRES}/postgres`, 'migrate', (url) => migrateInto('PostgreSQL', { DATABASE_URL: url }, unleash)),
  )
} finally {
  await unleash.stop()
}

console.log()
const cells = (pick: (f: Figures) => string) => figures.map(pick)
printMarkdownTable(
  ['', ...figures.map((f) => f.label)],
  [
    [`first migration (${FLAGS.toLocaleString('en')} flags created, 2 environments)`, ...cells((f) => s(f.first.seconds))],
    ['second run (nothing changed)', ...cells((f) => s(f.second.seconds))],
    ['verify, default contexts (50) × 2 environments, SDK and frontend API', ...cells((f) => s(f.verify.seconds))],
  ],
)
console.log()
console.log('CPU seconds during each run: Pennon server / Unleash / migrate CLI')
printMarkdownTable(
  ['', ...figures.map((f) => f.label)],
  (['first', 'second', 'verify'] as const).map((run) => [
    run === 'first' ? 'first migration' : run === 'second' ? 'second run' : 'verify',
    ...cells((f) => `${f.serverCpu[run].toFixed(1)} / ${f.unleashCpu[run].toFixed(1)} / ${f[run].cpu.toFixed(1)}`),
  ]),
)
console.log()
const stepTimes = (run: Run) => run.steps.map(([step, at], i) => `${step} ${s((run.steps[i + 1]?.[1] ?? run.seconds) - at)}`).join('; ')
for (const f of figures)
  console.log(`${f.label}: the first run's steps: ${stepTimes(f.first)}. Verify: ${stepTimes(f.verify)} (${f.checks}).`)
const problems = figures.flatMap((f) => f.problems)
for (const problem of problems) console.error(`\n${problem}`)
if (problems.length > 0) process.exitCode = 1
