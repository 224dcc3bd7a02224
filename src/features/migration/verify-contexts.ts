/**
 * Pure pieces of the verification: the contexts to evaluate every flag for (users, sessions and
 * the values the flags' constraints name, plus values just beside them), and which differences
 * are known ones of Unleash's frontend API rather than a migration that went wrong.
 */
export interface Context {
  userId?: string
  sessionId?: string
  remoteAddress?: string
  currentTime?: string
  appName?: string
  environment?: string
  properties?: Record<string, string>
}

/** A flag as GET /api/client/features serves it (the fields read here). */
export interface ServedFlag {
  name: string
  strategies?: Array<{
    name: string
    parameters?: Record<string, unknown>
    constraints?: Constraint[]
    segments?: number[]
    variants?: Array<{ stickiness?: string }>
  }>
  variants?: Array<{ stickiness?: string }>
  dependencies?: Array<{ feature: string; enabled?: boolean }>
}
interface Constraint {
  contextName: string
  operator: string
  values?: string[]
  value?: string
}
export interface Served {
  features: ServedFlag[]
  segments?: Array<{ id: number; constraints: Constraint[] }>
}

const STANDARD = new Set(['userId', 'sessionId', 'remoteAddress', 'currentTime', 'appName', 'environment'])

/** Values on and just beside a constraint's. */
function candidatesOf(c: Constraint): string[] {
  const values = [...(c.values ?? []), ...(c.value === undefined ? [] : [c.value])]
  const out = new Set<string>(values)
  for (const value of values) {
    if (c.operator.startsWith('NUM_') && Number.isFinite(Number(value))) for (const d of [-1, 1]) out.add(String(Number(value) + d))
    else if (c.operator.startsWith('DATE_') && !Number.isNaN(Date.parse(value)))
      for (const d of [-86_400_000, 86_400_000]) out.add(new Date(Date.parse(value) + d).toISOString())
    else if (c.operator.startsWith('SEMVER_')) {
      const match = /^(\d+)\.(\d+)\.(\d+)/.exec(value)
      if (match) out.add(`${match[1]}.${Number(match[2]) + 1}.0`).add(`${match[1]}.${match[2]}.${Math.max(0, Number(match[3]) - 1)}`)
    } else out.add(`${value}-other`)
  }
  out.add('zz-not-listed')
  return [...out]
}

/** Each context field the flags' constraints (and their segments') name, with the values worth trying. */
export function constraintValues(served: Served): Map<string, string[]> {
  const constraints: Constraint[] = [...(served.segments ?? []).flatMap((s) => s.constraints)]
  for (const flag of served.features) for (const strategy of flag.strategies ?? []) constraints.push(...(strategy.constraints ?? []))
  const map = new Map<string, Set<string>>()
  for (const c of constraints) {
    const set = map.get(c.contextName) ?? new Set<string>()
    for (const value of candidatesOf(c)) set.add(value)
    map.set(c.contextName, set)
  }
  for (const flag of served.features) {
    for (const strategy of flag.strategies ?? []) {
      const ids = strategy.parameters?.userIds
      if (strategy.name === 'userWithId' && typeof ids === 'string')
        for (const id of ids.split(',')) map.set('userId', (map.get('userId') ?? new Set()).add(id.trim()))
      const ips = strategy.parameters?.IPs
      if (strategy.name === 'remoteAddress' && typeof ips === 'string')
        for (const ip of ips.split(','))
          map.set('remoteAddress', (map.get('remoteAddress') ?? new Set()).add(ip.trim().replace(/\/\d+$/, '')))
    }
  }
  // currentTime must be a date-time: Unleash's frontend API refuses a request whose currentTime is not (400).
  const times = map.get('currentTime')
  if (times)
    map.set(
      'currentTime',
      new Set([...times].filter((v) => !Number.isNaN(Date.parse(v))).map((v) => new Date(Date.parse(v)).toISOString())),
    )
  return new Map([...map].map(([name, set]) => [name, [...set].sort()]))
}

/**
 * `count` contexts: every one with a userId and a sessionId (so no evaluation is random), and
 * each constrained field taking its candidate values in turn (a standard field every third context).
 */
export function generateContexts(served: Served, count: number): Context[] {
  const values = constraintValues(served)
  const contexts: Context[] = []
  for (let i = 0; i < count; i++) {
    const context: Context = { userId: `user-${i}`, sessionId: `session-${i}`, remoteAddress: `10.${i % 3}.0.${(i % 250) + 1}` }
    const properties: Record<string, string> = {}
    for (const [name, candidates] of values) {
      const value = candidates[Math.floor(i / (STANDARD.has(name) ? 3 : 1)) % candidates.length]!
      if (!STANDARD.has(name)) properties[name] = value
      else if (i % 3 === 0 && name !== 'environment' && name !== 'appName') (context as Record<string, unknown>)[name] = value
    }
    if (Object.keys(properties).length > 0) context.properties = properties
    contexts.push(context)
  }
  return contexts
}

/** True when an evaluation of the flag may differ on every call (random stickiness). */
export function isRandom(flag: ServedFlag | undefined): boolean {
  const random = (s?: string) => s === 'random'
  return (
    (flag?.strategies ?? []).some(
      (s) =>
        s.name === 'gradualRolloutRandom' ||
        random(s.parameters?.stickiness as string) ||
        (s.variants ?? []).some((v) => random(v.stickiness)),
    ) || (flag?.variants ?? []).some((v) => random(v.stickiness))
  )
}

const usesDates = (flag: ServedFlag, served: Served): boolean => {
  const segments = new Map((served.segments ?? []).map((s) => [s.id, s.constraints]))
  return (flag.strategies ?? []).some((s) =>
    [...(s.constraints ?? []), ...(s.segments ?? []).flatMap((id) => segments.get(id) ?? [])].some(
      (c) => c.operator.startsWith('DATE_') || c.contextName === 'currentTime',
    ),
  )
}

/**
 * Why a frontend-API difference for this flag and context is a known one of Unleash's frontend
 * API, or undefined. `flag` as the source serves it.
 */
export function knownFrontendDifference(flag: ServedFlag | undefined, context: Context, served: Served): string | undefined {
  if (flag === undefined) return undefined
  if (context.currentTime !== undefined && usesDates(flag, served))
    return "Unleash's frontend API ignores currentTime from the request (it evaluates at its own time)"
  if ((flag.dependencies ?? []).some((d) => d.enabled === false))
    return "Unleash's frontend API never lists a child whose parent must be off"
  if (isRandom(flag)) return 'random stickiness: each evaluation draws anew'
  return undefined
}
