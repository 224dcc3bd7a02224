/**
 * OpenFeature's remote evaluation protocol over the frontend API's evaluators: the same evaluator
 * per scope and flags version (client-api/frontend-service.ts) answers both APIs, so they cannot
 * drift. What is OFREP's own: the answer's shape and reason (ofrep-answers.ts), the context's
 * mapping (ofrep-context.ts), the event stream's credential (ofrep-events.ts) and the usage counts.
 */
import { readScope, type ReadScope } from '../client-api/client-features-service.ts'
import type { FrontendService, ScopeEvaluator } from '../client-api/frontend-service.ts'
import type { Decision } from '../evaluation/evaluate.ts'
import { MAX_REGEX_WORK } from '../evaluation/regex.ts'
import type { Caller } from '../metrics/metrics-ingestion-service.ts'
import type { BodyPool } from '../../http/body-pool.ts'
import type { Principal } from '../../http/permissions.ts'
import { answersWriter, bulkTail, type AnswersWriter } from './ofrep-answers.ts'
import { unleashContext } from './ofrep-context.ts'
import { flagNotFound, OfrepError } from './ofrep-errors.ts'
import { expiryAt, grantQuery, sign, verify, type StreamGrant } from './ofrep-events.ts'
import type { OfrepUsage } from './ofrep-usage.ts'

export const EVENTS_PATH = '/ofrep/v1/events'

/** Who asks: the token, its header's secret hash (what signs its stream credential), and the caller's address. */
export interface OfrepCaller {
  principal: Principal
  /** The SHA-256 of the token sent; undefined with AUTH_TYPE=none. */
  secretHash: string | undefined
  ip: string
}

type Tail = ReturnType<typeof bulkTail>
const MAX_TAILS = 1000

export function createOfrepService({
  frontend,
  usage,
  tokensByName,
  streams,
  publicUrl,
  openAccess,
  bodies,
  now = Date.now,
}: {
  frontend: Pick<FrontendService, 'evaluatorFor'>
  usage: OfrepUsage
  /** The working API tokens of a name, with their secret hashes (api-tokens/token-store.ts). */
  tokensByName: (name: string, now: string) => Promise<Array<{ secretHash: string; principal: Principal }>>
  /** Whether bulk answers offer an event stream (streaming on: STREAMING_MAX_CONNECTIONS > 0). */
  streams: boolean
  /** PUBLIC_URL: the stream's absolute URL; without it, a path the provider puts after its own origin. */
  publicUrl: string | undefined
  /** AUTH_TYPE=none: a stream needs no credential, as no request does. */
  openAccess: boolean
  /** Where bulk answers are written: the routes give each body back once sent (http/body-pool.ts). */
  bodies: BodyPool
  now?: () => number
}) {
  const writers = new WeakMap<ScopeEvaluator, AnswersWriter>()
  const writerOf = (scoped: ScopeEvaluator) => {
    let writer = writers.get(scoped)
    if (writer === undefined) writers.set(scoped, (writer = answersWriter(scoped.features, scoped.evaluator.switchedOff, bodies)))
    return writer
  }
  // A bulk answer's tail per credential and hour: equal on every instance (ofrep-events.ts), made once here.
  const tails = new Map<string, Tail>()
  const noStream = bulkTail(undefined)

  function tailFor(caller: OfrepCaller, scope: ReadScope): Tail {
    if (!streams) return noStream
    const expires = expiryAt(now())
    const token = caller.principal.kind === 'open-access' ? undefined : caller.principal.name
    if (token !== undefined && caller.secretHash === undefined) return noStream
    const key = JSON.stringify([caller.secretHash ?? null, scope.environment, scope.projects, expires])
    let tail = tails.get(key)
    if (tail === undefined) {
      const grant: StreamGrant = { token, environment: scope.environment, projects: scope.projects, expires }
      const requestUri = `${EVENTS_PATH}?${grantQuery(grant, caller.secretHash === undefined ? undefined : sign(grant, caller.secretHash))}`
      tail = bulkTail([
        publicUrl === undefined ? { type: 'sse', endpoint: { requestUri } } : { type: 'sse', url: `${publicUrl}${requestUri}` },
      ])
      if (tails.size >= MAX_TAILS) tails.clear()
      tails.set(key, tail)
    }
    return tail
  }

  async function prepare(caller: OfrepCaller, sent: Record<string, unknown>) {
    const scope = readScopeOf(caller.principal)
    const context = unleashContext(sent, caller.ip)
    const scoped = await frontend.evaluatorFor(scope)
    // Matching is linear in the values (RE2), but values are the caller's: their total work is bounded per request.
    const work = scoped.evaluator.regexWork(context)
    if (work > MAX_REGEX_WORK)
      throw new OfrepError(
        400,
        'INVALID_CONTEXT',
        `The context's values are too long for this instance's REGEX constraints (${work} units of work, more than ${MAX_REGEX_WORK}). Send shorter values.`,
      )
    return { scope, context, scoped }
  }

  function countUsage(
    caller: OfrepCaller,
    sent: Record<string, unknown>,
    scoped: ScopeEvaluator,
    answered: readonly Decision[],
    block?: readonly Decision[],
  ): void {
    const { principal } = caller
    const appName =
      typeof sent.appName === 'string' && sent.appName !== '' ? sent.appName : principal.scope ? principal.name : 'openfeature'
    const counted: Caller = {
      scope: principal.scope,
      token: principal.scope === undefined ? null : principal.name,
      clientIp: caller.ip,
      sdkType: principal.kind === 'client-token' ? 'backend' : 'frontend',
    }
    usage.count(counted, appName, scoped.evaluator, answered, block)
  }

  return {
    /** One flag's answer, as JSON. */
    async evaluateOne(caller: OfrepCaller, key: string, sent: Record<string, unknown>): Promise<Buffer> {
      const { context, scoped } = await prepare(caller, sent)
      const decision = scoped.evaluator.decide(key, context)
      if (decision === undefined) throw flagNotFound(key)
      countUsage(caller, sent, scoped, [decision])
      return writerOf(scoped).one(decision)
    },

    /** Every flag of the token's scope, disabled ones included (those off first), as JSON (from `bodies`) with its ETag. */
    async evaluateAll(caller: OfrepCaller, sent: Record<string, unknown>): Promise<{ json: Buffer; etag: string }> {
      const { scope, context, scoped } = await prepare(caller, sent)
      const decided = scoped.evaluator.decideSwitchedOn(context)
      countUsage(caller, sent, scoped, decided, scoped.evaluator.switchedOff)
      return writerOf(scoped).bulk(decided, tailFor(caller, scope))
    },

    /** The scope a stream's credential grants, or undefined when it does not verify (unknown token, expired, altered). */
    async streamScope(query: {
      token?: string
      environment: string
      projects: string
      expires: string
      signature?: string
    }): Promise<{ scope: ReadScope; owner: string | undefined } | undefined> {
      const expires = Number(query.expires)
      if (!Number.isSafeInteger(expires) || expires < now()) return undefined
      const grant: StreamGrant = {
        token: query.token,
        environment: query.environment,
        projects: query.projects === '' ? [] : query.projects.split(','),
        expires,
      }
      const scope = { environment: grant.environment, projects: grant.projects }
      if (query.token === undefined) return openAccess ? { scope, owner: undefined } : undefined
      if (query.signature === undefined) return undefined
      for (const candidate of await tokensByName(query.token, new Date(now()).toISOString())) {
        if (!verify(grant, candidate.secretHash, query.signature)) continue
        // A client or frontend token's grant is its own scope; an admin token's names the environment it read.
        const own = candidate.principal.scope
        if (own !== undefined && JSON.stringify(readScopeOf(candidate.principal)) !== JSON.stringify(scope)) return undefined
        return { scope, owner: JSON.stringify(['ofrep', candidate.principal.kind, query.token, scope]) }
      }
      return undefined
    },
  }
}

export type OfrepService = ReturnType<typeof createOfrepService>

/** The environment and projects a token reads, as on the frontend API. */
const readScopeOf = (principal: Principal): ReadScope => readScope(principal.scope, undefined)
