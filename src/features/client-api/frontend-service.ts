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
 * made once: each flag's fixed part (its name, its impressionData) and each variant's JSON
 * (variant results are shared, frozen objects, a few per flag), instead of serializing a few
 * hundred objects on every request.
 */
function togglesWriter(): (toggles: readonly FrontendFeature[]) => string {
  const flagText = new Map<string, { open: string; close: string }>()
  const variantText = new WeakMap<VariantResult, string>()
  return (toggles) => {
    let json = '{"toggles":['
    for (let i = 0; i < toggles.length; i++) {
      const { name, variant, impressionData } = toggles[i]!
      let flag = flagText.get(name)
      if (flag === undefined) {
        flag = { open: `{"name":${JSON.stringify(name)},"enabled":true,"variant":`, close: `,"impressionData":${impressionData}}` }
        flagText.set(name, flag)
      }
      let variantJson = variantText.get(variant)
      if (variantJson === undefined) {
        variantJson = JSON.stringify(variant)
        variantText.set(variant, variantJson)
      }
      json += i === 0 ? flag.open : `,${flag.open}`
      json += variantJson
      json += flag.close
    }
    return `${json}]}`
  }
}

interface ScopeEvaluator {
  evaluator: Evaluator
  write: (toggles: readonly FrontendFeature[]) => string
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
    /** The enabled flags for a context, as JSON bytes with their ETag. */
    async evaluate(scope: ReadScope, context: EvaluationContext): Promise<{ body: Buffer; etag: string }> {
      const { evaluator, write } = await evaluatorFor(scope)
      const body = Buffer.from(write(evaluator.evaluateAll(context)))
      // One-shot: no Hash object per request.
      return { body, etag: `"${hash('sha256', body, 'base64url').slice(0, 27)}"` }
    },
  }
}

export type FrontendService = ReturnType<typeof createFrontendService>
