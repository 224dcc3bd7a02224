/**
 * The frontend API: every flag a frontend token may read, evaluated on the server for the
 * context a browser or mobile SDK sends, answering the enabled ones with their variant. The
 * evaluator (evaluation/evaluate.ts: compiled constraints, regexes, hashes) is built once per
 * environment, projects and version of the flags, and shared by every request meanwhile.
 */
import { randomBytes } from 'node:crypto'
import { invalid } from '../../http/errors.ts'
import { createEvaluator, type Evaluator } from '../evaluation/evaluate.ts'
import { MAX_REGEX_WORK } from '../evaluation/regex.ts'
import type { EvaluationContext, FrontendFeature } from '../evaluation/types.ts'
import type { ClientFeaturesService, ReadScope } from './client-features-service.ts'
import type { ClientFeature } from './client-features-store.ts'
import { cachedJsonArrayWriter } from './cached-json.ts'
import type { BodyPool } from '../../http/body-pool.ts'

/** Context fields the SDKs send at the top level; anything else is a custom property. */
const STANDARD_FIELDS = new Set(['userId', 'sessionId', 'remoteAddress', 'appName', 'environment', 'currentTime'])

const PROPERTY = /^properties\[(.+)\]$/

/**
 * An Unleash context from what an SDK sent, as the reference's frontend API makes it:
 * `properties[name]` or any unknown field becomes a custom property; a repeated query parameter
 * counts once (its first value); empty standard fields count as not sent. Then the reference's
 * defaults: `remoteAddress` is the caller's address, `sessionId` a fresh random one (so a
 * `sessionId` or `default` stickiness without a userId is random per request), `appName`
 * `frontend-api` and `environment` `default` (those of the SDK client it evaluates with).
 */
export function contextFrom(sent: Record<string, unknown>, callerAddress: string): EvaluationContext {
  const context: Record<string, unknown> = {}
  const properties: Record<string, string> = {}
  const text = (value: unknown) => (Array.isArray(value) ? value[0] : value)
  for (const [key, raw] of Object.entries(sent)) {
    const value = text(raw)
    if (key === 'properties' && typeof value === 'object' && value !== null) {
      for (const [name, property] of Object.entries(value))
        if (typeof text(property) === 'string') properties[name] = text(property) as string
      continue
    }
    if (typeof value !== 'string') continue
    const property = PROPERTY.exec(key)
    if (property) properties[property[1]!] = value
    else if (STANDARD_FIELDS.has(key)) {
      if (value !== '') context[key] = value
    } else properties[key] = value
  }
  return {
    appName: FRONTEND_APP_NAME,
    environment: FRONTEND_ENVIRONMENT,
    remoteAddress: callerAddress,
    ...context,
    sessionId: (context.sessionId as string | undefined) ?? randomBytes(18).toString('hex'),
    properties,
  } as EvaluationContext
}

/** The reference evaluates frontend requests with an SDK client named `frontend-api`, whose environment is the SDK's default. */
export const FRONTEND_APP_NAME = 'frontend-api'
export const FRONTEND_ENVIRONMENT = 'default'

const MAX_EVALUATORS = 64

/** `{"toggles":[…]}` from the enabled flags, each toggle's JSON made once (cached-json.ts), written into `bodies`. */
const togglesWriter = (bodies: BodyPool) =>
  cachedJsonArrayWriter<FrontendFeature>(
    '{"toggles":[',
    (toggle) => JSON.stringify({ name: toggle.name, enabled: true, variant: toggle.variant, impressionData: toggle.impressionData }),
    { bodies },
  )

export interface ScopeEvaluator {
  evaluator: Evaluator
  write: ReturnType<typeof togglesWriter>
  /** The flags it evaluates, in its order (their project, type and staleness: OpenFeature's metadata). */
  features: readonly ClientFeature[]
}

export function createFrontendService({
  clientFeatures,
  bodies,
}: {
  clientFeatures: ClientFeaturesService
  /** Where answers are written: the routes give each body back once sent (http/body-pool.ts). */
  bodies: BodyPool
}) {
  const evaluators = new Map<string, { version: number; evaluator: Promise<ScopeEvaluator> }>()

  // A token's projects list is the same array on every request (its remembered principal's): its text is made once.
  const projectKeys = new WeakMap<readonly string[], string>()

  function evaluatorFor(scope: ReadScope): Promise<ScopeEvaluator> {
    let projects = projectKeys.get(scope.projects)
    if (projects === undefined) projectKeys.set(scope.projects, (projects = JSON.stringify(scope.projects)))
    const key = `${JSON.stringify(scope.environment)}${projects}`
    const { version, flags } = clientFeatures.environmentFlags(scope.environment)
    const known = evaluators.get(key)
    if (version !== undefined && known?.version === version) return known.evaluator
    const evaluator = flags.then((read) => {
      const features = clientFeatures.visible(read, scope)
      return { evaluator: createEvaluator({ features, segments: [...read.segments.values()] }), write: togglesWriter(bodies), features }
    })
    if (version !== undefined) {
      evaluators.delete(key)
      evaluators.set(key, { version, evaluator })
      if (evaluators.size > MAX_EVALUATORS) evaluators.delete(evaluators.keys().next().value as string)
      evaluator.catch(() => evaluators.get(key)?.evaluator === evaluator && evaluators.delete(key))
    }
    return evaluator
  }

  return {
    /** The scope's evaluator, shared with OpenFeature's evaluations (openfeature/): one evaluator, one answer. */
    evaluatorFor,
    /** The enabled flags for a context, as JSON bytes (from `bodies`) with their ETag. */
    async evaluate(scope: ReadScope, context: EvaluationContext): Promise<{ body: Buffer; etag: string }> {
      const { evaluator, write } = await evaluatorFor(scope)
      // Matching is linear in the values (RE2), but values are the caller's: their total work is bounded per request.
      const work = evaluator.regexWork(context)
      if (work > MAX_REGEX_WORK) throw regexWorkTooLarge(work)
      const { json, etag } = write.write(evaluator.evaluateAll(context))
      return { body: json, etag }
    },
  }
}

export type FrontendService = ReturnType<typeof createFrontendService>

const regexWorkTooLarge = (work: number) =>
  invalid(
    `The context's values are too long for this instance's REGEX constraints: matching them would cost ${work} units of work ` +
      `(each value's length times the program size of the patterns on its field), more than the limit of ${MAX_REGEX_WORK} per request. Send shorter values.`,
  )
