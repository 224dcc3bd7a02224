/**
 * The frontend API: every flag a frontend token may read, evaluated on the server for the
 * context a browser or mobile SDK sends, answering the enabled ones with their variant. The
 * evaluator (evaluation/evaluate.ts: compiled constraints, regexes, hashes) is built once per
 * environment, projects and version of the flags, and shared by every request meanwhile.
 */
import { hash } from 'node:crypto'
import { createEvaluator, type Evaluator } from '../evaluation/evaluate.ts'
import type { EvaluationContext, FrontendFeature, VariantResult } from '../evaluation/types.ts'
import type { ClientFeaturesService, ReadScope } from './client-features-service.ts'

/** Context fields the SDKs send at the top level; anything else is a custom property. */
const STANDARD_FIELDS = new Set(['userId', 'sessionId', 'remoteAddress', 'appName', 'environment', 'currentTime'])

const PROPERTY = /^properties\[(.+)\]$/

/**
 * An Unleash context from what an SDK sent: `properties[name]` or any unknown field becomes a
 * custom property (as the reference does); a repeated query parameter counts once (its first value).
 * `remoteAddress` defaults to the caller's address.
 */
export function contextFrom(sent: Record<string, unknown>, callerAddress: string): EvaluationContext {
  const context: Record<string, unknown> = {}
  const properties: Record<string, string> = {}
  const text = (value: unknown) => (Array.isArray(value) ? value[0] : value)
  for (const [key, raw] of Object.entries(sent)) {
    const value = text(raw)
    if (key === 'properties' && typeof value === 'object' && value !== null) {
      for (const [name, property] of Object.entries(value)) if (typeof text(property) === 'string') properties[name] = text(property) as string
      continue
    }
    if (typeof value !== 'string') continue
    const property = PROPERTY.exec(key)
    if (property) properties[property[1]!] = value
    else if (STANDARD_FIELDS.has(key)) context[key] = value
    else properties[key] = value
  }
  return { remoteAddress: callerAddress, ...context, properties } as EvaluationContext
}

const MAX_EVALUATORS = 64

/**
 * `{"toggles":[…]}` from the enabled flags, the same bytes as `JSON.stringify`, but from text
 * made once per flag and variant (the evaluator's toggles are shared, frozen objects, a few per
 * flag) instead of serializing a few hundred objects on every request. The ETag is a hash of the
 * toggles' own digests, also made once: equal lists of toggle texts are equal bodies, so it
 * changes with the body (up to the 96 bits of each digest), without reading the body's tens of
 * kilobytes again on every request, and is the same on every instance for the same answer.
 */
function togglesWriter(): (toggles: readonly FrontendFeature[]) => { json: string; etag: string } {
  const written = new Map<FrontendFeature, { text: string; digest: string }>()
  const textOf = (toggle: FrontendFeature) => {
    let entry = written.get(toggle)
    if (entry === undefined) {
      const { name, variant, impressionData } = toggle
      const text = `{"name":${JSON.stringify(name)},"enabled":true,"variant":${JSON.stringify(variant)},"impressionData":${impressionData}}`
      entry = { text, digest: hash('sha256', text, 'base64url').slice(0, 16) }
      written.set(toggle, entry)
    }
    return entry
  }
  return (toggles) => {
    const texts = new Array<string>(toggles.length)
    const digests = new Array<string>(toggles.length)
    for (let i = 0; i < toggles.length; i++) {
      const { text, digest } = textOf(toggles[i]!)
      texts[i] = text
      digests[i] = digest
    }
    return { json: `{"toggles":[${texts.join(',')}]}`, etag: `"${hash('sha256', digests.join(''), 'base64url').slice(0, 27)}"` }
  }
}

interface ScopeEvaluator {
  evaluator: Evaluator
  write: ReturnType<typeof togglesWriter>
}

export function createFrontendService({ clientFeatures }: { clientFeatures: ClientFeaturesService }) {
  const evaluators = new Map<string, { version: number; evaluator: Promise<ScopeEvaluator> }>()

  function evaluatorFor(scope: ReadScope): Promise<ScopeEvaluator> {
    const key = JSON.stringify([scope.environment, scope.projects])
    const { version, flags } = clientFeatures.environmentFlags(scope.environment)
    const known = evaluators.get(key)
    if (version !== undefined && known?.version === version) return known.evaluator
    const evaluator = flags.then((read) => ({
      evaluator: createEvaluator({ features: clientFeatures.visible(read, scope), segments: [...read.segments.values()] }),
      write: togglesWriter(),
    }))
    if (version !== undefined) {
      evaluators.delete(key)
      evaluators.set(key, { version, evaluator })
      if (evaluators.size > MAX_EVALUATORS) evaluators.delete(evaluators.keys().next().value as string)
      evaluator.catch(() => evaluators.get(key)?.evaluator === evaluator && evaluators.delete(key))
    }
    return evaluator
  }

  return {
    /** The enabled flags for a context, as JSON text with its ETag (sent as it is: no copy into a Buffer first). */
    async evaluate(scope: ReadScope, context: EvaluationContext): Promise<{ body: string; etag: string }> {
      const { evaluator, write } = await evaluatorFor(scope)
      const { json, etag } = write(evaluator.evaluateAll(context))
      return { body: json, etag }
    },
  }
}

export type FrontendService = ReturnType<typeof createFrontendService>
