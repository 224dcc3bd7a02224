/**
 * `--verify`: what both servers serve, compared. Per environment, a real unleash-client against
 * each server (client tokens given, or created with the admin tokens and deleted after) evaluates
 * every flag — enabled and variant — for each context; the frontend API of both answers the same
 * contexts. Every difference is listed with its flag and context; the known differences of
 * Unleash's frontend API are labelled as such (verify-contexts.ts).
 */
import { randomBytes } from 'node:crypto'
import type { AdminClient } from './admin-client.ts'
import { seg } from './admin-client.ts'
import { canonical } from './migrate-definitions.ts'
import { generateContexts, isRandom, knownFrontendDifference, type Context, type Served } from './verify-contexts.ts'

export interface VerifyOptions {
  from: AdminClient
  to: AdminClient
  environments?: string[]
  contexts: Context[]
  /** Contexts generated from the flags (default 50). */
  generated?: number
  tokens: {
    fromClient: Map<string, string>
    toClient: Map<string, string>
    fromFrontend: Map<string, string>
    toFrontend: Map<string, string>
  }
  progress?: (line: string) => void
}

export interface Difference {
  environment: string
  api: 'client SDK' | 'frontend API'
  flag: string
  context: Context
  from: string
  to: string
  known?: string
}

export interface VerifyReport {
  environments: string[]
  contexts: number
  /** Per environment and flag: [checks that agreed, checks]. */
  flags: Map<string, [number, number]>
  differences: Difference[]
  checks: number
  agreed: number
  known: number
  unexplained: number
  /** The flags the target serves and the source does not, with the environments where: not compared. */
  onlyOnTarget: Map<string, string[]>
}

interface Side {
  client: AdminClient
  created: Array<{ name: string; secret: string }>
}

async function tokenFor(side: Side, given: Map<string, string>, environment: string, type: 'backend' | 'frontend'): Promise<string> {
  const secret = given.get(environment)
  if (secret !== undefined) return secret
  const tokenName = `pennon-verify-${type}-${environment}-${randomBytes(3).toString('hex')}`
  const created = await side.client.send('POST', '/api/admin/api-tokens', { tokenName, type, environment, projects: ['*'] })
  side.created.push({ name: tokenName, secret: created.secret })
  return created.secret
}

/** Unleash deletes a token by its secret, Pennon by its name: whichever the server takes. */
async function deleteTokens(side: Side): Promise<void> {
  for (const { name, secret } of side.created) {
    const bySecret = await side.client.request('DELETE', `/api/admin/api-tokens/${seg(secret)}`)
    if (bySecret.status >= 300) await side.client.request('DELETE', `/api/admin/api-tokens/${seg(name)}`)
  }
}

async function startSdk(base: string, token: string, environment: string): Promise<any> {
  let sdk: typeof import('unleash-client')
  try {
    sdk = await import('unleash-client')
  } catch {
    throw new Error('--verify needs the unleash-client package (npm install unleash-client)')
  }
  const client = new sdk.Unleash({
    url: `${base}/api/`,
    appName: 'pennon-verify',
    environment,
    customHeaders: { Authorization: token },
    disableMetrics: true,
    refreshInterval: 3_600_000,
    storageProvider: new sdk.InMemStorageProvider(),
  })
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${base}: the SDK did not synchronize within 30 s`)), 30_000)
    client.once('synchronized', () => (clearTimeout(timer), resolve()))
    client.once('error', (error: Error) => (clearTimeout(timer), reject(new Error(`${base}: the SDK failed: ${error.message}`))))
  })
  return client
}

async function served(client: AdminClient, token: string): Promise<Served> {
  const answer = await client.request('GET', '/api/client/features', undefined, token)
  if (answer.status !== 200) throw new Error(`${client.base}/api/client/features answered ${answer.status}`)
  return answer.body
}

const sdkAnswer = (sdk: any, flag: string, context: Context) => {
  const { name, enabled, payload } = sdk.getVariant(flag, context)
  return canonical({ enabled: sdk.isEnabled(flag, context), variant: { name, enabled, ...(payload === undefined ? {} : { payload }) } })
}

async function frontendAnswers(client: AdminClient, token: string, context: Context): Promise<Map<string, string>> {
  const answer = await client.request('POST', '/api/frontend', { context }, token)
  if (answer.status !== 200)
    throw new Error(`${client.base}/api/frontend answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 300)}`)
  return new Map((answer.body.toggles as any[]).map((t) => [t.name, canonical({ enabled: t.enabled, variant: t.variant })]))
}

export async function runVerification(options: VerifyOptions): Promise<VerifyReport> {
  const { from, to, tokens } = options
  const progress = options.progress ?? (() => {})
  const environments =
    options.environments ??
    ((await from.get('/api/admin/environments')).environments as any[]).filter((e) => e.enabled !== false).map((e) => e.name)
  const report: VerifyReport = {
    environments,
    contexts: 0,
    flags: new Map(),
    differences: [],
    checks: 0,
    agreed: 0,
    known: 0,
    unexplained: 0,
    onlyOnTarget: new Map(),
  }
  const sides: Side[] = [
    { client: from, created: [] },
    { client: to, created: [] },
  ]
  const record = (key: string, agreed: boolean, difference?: Difference) => {
    const entry = report.flags.get(key) ?? [0, 0]
    entry[1]++
    report.checks++
    if (agreed) {
      entry[0]++
      report.agreed++
    } else {
      report.differences.push(difference!)
      if (difference!.known) report.known++
      else report.unexplained++
    }
    report.flags.set(key, entry)
  }
  const sdks: any[] = []
  try {
    for (const environment of environments) {
      progress(`verifying ${environment}…`)
      const clientTokens = [
        await tokenFor(sides[0]!, tokens.fromClient, environment, 'backend'),
        await tokenFor(sides[1]!, tokens.toClient, environment, 'backend'),
      ]
      const frontendTokens = [
        await tokenFor(sides[0]!, tokens.fromFrontend, environment, 'frontend'),
        await tokenFor(sides[1]!, tokens.toFrontend, environment, 'frontend'),
      ]
      const [source, target] = [await served(from, clientTokens[0]!), await served(to, clientTokens[1]!)]
      const sourceFlags = new Map(source.features.map((f) => [f.name, f]))
      // The source's flags are compared (one the target lacks differs); the target's own are listed apart.
      const names = [...sourceFlags.keys()].sort()
      for (const { name } of target.features)
        if (!sourceFlags.has(name)) report.onlyOnTarget.set(name, [...(report.onlyOnTarget.get(name) ?? []), environment])
      const contexts = [...generateContexts(source, options.generated ?? 50), ...options.contexts]
      report.contexts = contexts.length
      const [a, b] = [await startSdk(from.base, clientTokens[0]!, environment), await startSdk(to.base, clientTokens[1]!, environment)]
      sdks.push(a, b)
      for (const flag of names) {
        for (const context of contexts) {
          const [x, y] = [sdkAnswer(a, flag, context), sdkAnswer(b, flag, context)]
          const known = isRandom(sourceFlags.get(flag)) ? 'random stickiness: each evaluation draws anew' : undefined
          record(`${environment} ${flag}`, x === y, {
            environment,
            api: 'client SDK',
            flag,
            context,
            from: x,
            to: y,
            ...(known ? { known } : {}),
          })
        }
      }
      for (const context of contexts) {
        const [x, y] = [await frontendAnswers(from, frontendTokens[0]!, context), await frontendAnswers(to, frontendTokens[1]!, context)]
        for (const flag of names) {
          const [p, q] = [x.get(flag) ?? 'not listed', y.get(flag) ?? 'not listed']
          const known = p === q ? undefined : knownFrontendDifference(sourceFlags.get(flag), context, source)
          record(`${environment} ${flag}`, p === q, {
            environment,
            api: 'frontend API',
            flag,
            context,
            from: p,
            to: q,
            ...(known ? { known } : {}),
          })
        }
      }
    }
  } finally {
    for (const sdk of sdks) sdk.destroy()
    for (const side of sides) await deleteTokens(side)
  }
  return report
}

const percent = (agreed: number, checks: number) => (checks === 0 ? '100.00' : ((agreed / checks) * 100).toFixed(2))

/** At most this many flags only on the target are named; the rest are counted. */
const LISTED_ONLY_ON_TARGET = 20

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`

/**
 * Whether the run fails, and the line that says why (or that it passed, and what it did not
 * count): unexplained differences fail it; known differences and flags only on the target only
 * under `--strict`.
 */
export function verdict(report: VerifyReport, strict: boolean): { failed: boolean; line: string } {
  const onlyOnTarget = report.onlyOnTarget.size
  const reasons = [
    ...(report.unexplained > 0 ? [`${plural(report.unexplained, 'check differs', 'checks differ')} (listed under "Differences")`] : []),
    ...(strict && report.known > 0 ? [`${plural(report.known, 'known difference', 'known differences')}, counted under --strict`] : []),
    ...(strict && onlyOnTarget > 0 ? [`${plural(onlyOnTarget, 'flag is', 'flags are')} only on the target, counted under --strict`] : []),
  ]
  if (reasons.length > 0) return { failed: true, line: `Verification failed: ${reasons.join('; ')}.` }
  const uncounted = [
    ...(report.known > 0 ? [plural(report.known, 'known difference', 'known differences')] : []),
    ...(onlyOnTarget > 0 ? [`${plural(onlyOnTarget, 'flag', 'flags')} only on the target`] : []),
  ]
  return {
    failed: false,
    line: `Verification passed${uncounted.length > 0 ? `: ${uncounted.join(' and ')} not counted (--strict counts them)` : ''}.`,
  }
}

export function formatVerification(report: VerifyReport, strict = false): string {
  const lines = [
    `Environments: ${report.environments.join(', ')}; ${report.contexts} contexts per flag, through the client SDK and the frontend API.`,
    '',
    'Agreement per flag:',
  ]
  for (const [key, [agreed, checks]] of [...report.flags].sort(([a], [b]) => (a < b ? -1 : 1)))
    lines.push(`  ${percent(agreed, checks).padStart(6)}%  ${key}  (${agreed}/${checks})`)
  const known = report.differences.filter((d) => d.known)
  const unexplained = report.differences.filter((d) => !d.known)
  const describe = (d: Difference) =>
    `  [${d.environment}] ${d.api} ${d.flag} for ${JSON.stringify(d.context)}: source ${d.from}, target ${d.to}${d.known ? ` (known: ${d.known})` : ''}`
  if (unexplained.length > 0) lines.push('', `Differences (${unexplained.length}):`, ...unexplained.map(describe))
  if (known.length > 0) lines.push('', `Known differences (${known.length}), not counted against the agreement:`, ...known.map(describe))
  if (report.onlyOnTarget.size > 0) {
    const flags = [...report.onlyOnTarget].sort(([a], [b]) => (a < b ? -1 : 1))
    const more = flags.length - LISTED_ONLY_ON_TARGET
    lines.push(
      '',
      `Flags only on the target (${flags.length}), not compared${strict ? '' : ', not counted against the agreement'}:`,
      ...flags.slice(0, LISTED_ONLY_ON_TARGET).map(([flag, environments]) => `  ${flag} (${environments.join(', ')})`),
      ...(more > 0 ? [`  … and ${more} more`] : []),
    )
  }
  lines.push(
    '',
    `Agreement: ${percent(report.agreed + report.known, report.checks)}% of ${report.checks} checks (${report.unexplained} differences, ${report.known} known).`,
  )
  lines.push(verdict(report, strict).line)
  return `${lines.join('\n')}\n`
}
