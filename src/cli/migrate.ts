/**
 * `npm run migrate -- --from <url> --from-token <admin token> --to <url> --to-token <admin token>`:
 * copies everything an Unleash (or Pennon) server's admin API shows into a Pennon through Pennon's
 * admin API (audited, on either database), writing only what differs; prints what it created,
 * updated and left unchanged. `--verify` instead compares what both servers serve, flag by flag,
 * with real SDK clients and the frontend API: exit code 0 only when they agree. docs/migration.md.
 */
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { createAdminClient } from '../features/migration/admin-client.ts'
import { runMigration, TOKENS_NOTE } from '../features/migration/migration.ts'
import { changedNothing, formatSummary } from '../features/migration/summary.ts'
import { formatVerification, runVerification } from '../features/migration/verify.ts'

const USAGE = `usage: npm run migrate -- --from <source url> --from-token <admin token> --to <pennon url> --to-token <admin token>
         [--verify [--environment <name>]… [--contexts <file.json>] [--generated <n>] [--strict]
                   [--from-client-token <env>=<secret>]… [--to-client-token <env>=<secret>]…
                   [--from-frontend-token <env>=<secret>]… [--to-frontend-token <env>=<secret>]…]`

const options = {
  from: { type: 'string' },
  'from-token': { type: 'string' },
  to: { type: 'string' },
  'to-token': { type: 'string' },
  verify: { type: 'boolean' },
  environment: { type: 'string', multiple: true },
  contexts: { type: 'string' },
  generated: { type: 'string' },
  strict: { type: 'boolean' },
  'from-client-token': { type: 'string', multiple: true },
  'to-client-token': { type: 'string', multiple: true },
  'from-frontend-token': { type: 'string', multiple: true },
  'to-frontend-token': { type: 'string', multiple: true },
  help: { type: 'boolean', short: 'h' },
} as const

class UsageError extends Error {}

/** `env=secret` options as a map. */
function byEnvironment(values: string[] | undefined, option: string): Map<string, string> {
  const map = new Map<string, string>()
  for (const value of values ?? []) {
    const at = value.indexOf('=')
    if (at < 1) throw new UsageError(`--${option} takes <environment>=<secret>, not ${JSON.stringify(value)}`)
    map.set(value.slice(0, at), value.slice(at + 1))
  }
  return map
}

export async function main(argv: string[], out: (text: string) => void, err: (text: string) => void): Promise<number> {
  let values
  try {
    values = parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values
  } catch (error) {
    err(`pennon migrate: ${(error as Error).message}\n${USAGE}\n`)
    return 2
  }
  if (values.help) {
    out(`${USAGE}\n`)
    return 0
  }
  try {
    for (const name of ['from', 'from-token', 'to', 'to-token'] as const) if (!values[name]) throw new UsageError(`--${name} is required`)
    const waited = (seconds: number, path: string) => err(`rate limited at ${path}: waiting ${seconds} s as the server asks…\n`)
    const from = createAdminClient(values.from!, values['from-token']!, waited)
    const to = createAdminClient(values.to!, values['to-token']!, waited)
    if (!values.verify) {
      const started = performance.now()
      const summary = await runMigration(from, to, (step) => err(`migrating ${step}…\n`))
      out(`${formatSummary(summary)}\n\n`)
      out(changedNothing(summary) ? 'Nothing changed: the target already had everything.\n' : 'Migrated.\n')
      out(`${TOKENS_NOTE}\n`)
      err(`took ${((performance.now() - started) / 1000).toFixed(1)} s\n`)
      return 0
    }
    const generated = values.generated === undefined ? undefined : Number(values.generated)
    if (generated !== undefined && !(Number.isInteger(generated) && generated >= 0 && generated <= 10_000)) throw new UsageError('--generated takes a whole number from 0 to 10000')
    const extra = values.contexts === undefined ? [] : JSON.parse(readFileSync(values.contexts, 'utf8'))
    if (!Array.isArray(extra)) throw new UsageError(`--contexts: ${values.contexts} must hold a JSON array of contexts`)
    const report = await runVerification({
      from,
      to,
      environments: values.environment,
      contexts: extra,
      ...(generated === undefined ? {} : { generated }),
      tokens: {
        fromClient: byEnvironment(values['from-client-token'], 'from-client-token'),
        toClient: byEnvironment(values['to-client-token'], 'to-client-token'),
        fromFrontend: byEnvironment(values['from-frontend-token'], 'from-frontend-token'),
        toFrontend: byEnvironment(values['to-frontend-token'], 'to-frontend-token'),
      },
      progress: (line) => err(`${line}\n`),
    })
    out(formatVerification(report))
    const failed = report.unexplained > 0 || (values.strict === true && report.known > 0)
    return failed ? 1 : 0
  } catch (error) {
    if (error instanceof UsageError) {
      err(`pennon migrate: ${error.message}\n${USAGE}\n`)
      return 2
    }
    err(`pennon migrate: ${(error as Error).message}\n`)
    return 1
  }
}

if (import.meta.main) process.exitCode = await main(process.argv.slice(2), (t) => process.stdout.write(t), (t) => process.stderr.write(t))
