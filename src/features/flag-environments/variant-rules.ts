/**
 * Variants (of a flag's environment, or of a strategy), as pure functions: the rules the
 * schema cannot say, and the weights. Weights are per mille: a list's weights always sum
 * to 1000 once stored. `fix` weights are kept as sent; the rest of the 1000 is spread over
 * the `variable` variants (their sent weight is ignored), the first ones taking one more
 * each until the remainder is gone.
 */
import { quote, type ErrorDetail } from '../../http/errors.ts'
import { isFiniteNumberText } from '../constraints/constraints.ts'

export const PAYLOAD_TYPES = ['string', 'json', 'csv', 'number'] as const
export const WEIGHT_TYPES = ['variable', 'fix'] as const

export interface VariantPayload {
  type: (typeof PAYLOAD_TYPES)[number]
  value: string
}

export interface VariantOverride {
  contextName: string
  values: string[]
}

/** A variant as sent: what the schema has already checked. */
export interface VariantInput {
  name: string
  weight?: number
  weightType?: (typeof WEIGHT_TYPES)[number]
  stickiness?: string
  payload?: VariantPayload
  overrides?: VariantOverride[]
}

/** A variant as stored and shown: keys in one order, defaults filled. */
export interface Variant {
  name: string
  weight: number
  weightType: (typeof WEIGHT_TYPES)[number]
  stickiness: string
  payload?: VariantPayload
  overrides?: VariantOverride[]
}

export const TOTAL_WEIGHT = 1000

/** Every rule of a list of variants; `path` points at the list (`/body`, `/body/variants`). */
export function checkVariants(variants: readonly VariantInput[], path: string): ErrorDetail[] {
  const details: ErrorDetail[] = []
  const seen = new Set<string>()
  for (const [index, variant] of variants.entries()) {
    const at = `${path}/${index}`
    if (seen.has(variant.name)) {
      details.push({
        path: `${at}/name`,
        message: `The \`${at}/name\` property must be unique among the variants: ${quote(variant.name)} is there twice.`,
      })
    }
    seen.add(variant.name)
    if ((variant.weightType ?? 'variable') === 'fix' && variant.weight === undefined) {
      details.push({
        path: `${at}/weight`,
        message: `The \`${at}/weight\` property is required for a variant whose weightType is "fix". It was not present on the data you sent.`,
      })
    }
    const payload = variant.payload
    if (payload?.type === 'json' && !isJson(payload.value)) {
      details.push({
        path: `${at}/payload/value`,
        message: `The \`${at}/payload/value\` property must be valid JSON for a "json" payload. You sent ${quote(payload.value)}.`,
      })
    }
    if (payload?.type === 'number' && !isFiniteNumberText(payload.value)) {
      details.push({
        path: `${at}/payload/value`,
        message: `The \`${at}/payload/value\` property must be a finite number for a "number" payload. You sent ${quote(payload.value)}.`,
      })
    }
  }
  const fixed = variants.filter((variant) => variant.weightType === 'fix')
  const fixedSum = fixed.reduce((sum, variant) => sum + (variant.weight ?? 0), 0)
  if (fixed.length === variants.length && variants.length > 0 && fixedSum !== TOTAL_WEIGHT) {
    details.push({
      path,
      message: `The \`${path}\` property's weights must sum to ${TOTAL_WEIGHT} when every variant's weight is fixed. Yours sum to ${fixedSum}.`,
    })
  } else if (fixedSum > TOTAL_WEIGHT) {
    details.push({
      path,
      message: `The \`${path}\` property's fixed weights must sum to at most ${TOTAL_WEIGHT}. Yours sum to ${fixedSum}.`,
    })
  }
  return details
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

// The reference sorts with `localeCompare` in its default locale, en-US wherever no other is set.
// Made on first use: a collator loads ICU's collation data (about 3 MB resident) for the process's life.
let collator: Intl.Collator | undefined
const byName = (a: string, b: string) => (collator ??= new Intl.Collator('en-US')).compare(a, b)

/**
 * The stored form of a list that passed checkVariants: defaults filled, variable weights spread
 * (in the order sent), then sorted by name as the reference stores them. SDKs pick a variant by
 * its position in the list, so the order decides which user gets which variant.
 * `withOverrides`: environment variants carry overrides (always an array); strategy variants none.
 */
export function normalizeVariants(variants: readonly VariantInput[], { withOverrides }: { withOverrides: boolean }): Variant[] {
  const fixedSum = variants.reduce((sum, variant) => sum + (variant.weightType === 'fix' ? (variant.weight ?? 0) : 0), 0)
  const variableCount = variants.filter((variant) => variant.weightType !== 'fix').length
  const share = variableCount === 0 ? 0 : Math.floor((TOTAL_WEIGHT - fixedSum) / variableCount)
  let remainder = variableCount === 0 ? 0 : (TOTAL_WEIGHT - fixedSum) % variableCount
  return variants
    .map((variant) => {
      const fix = variant.weightType === 'fix'
      const weight = fix ? (variant.weight ?? 0) : share + (remainder-- > 0 ? 1 : 0)
      return {
        name: variant.name,
        weight,
        weightType: fix ? 'fix' : 'variable',
        stickiness: variant.stickiness ?? 'default',
        ...(variant.payload ? { payload: { type: variant.payload.type, value: variant.payload.value } } : {}),
        ...(withOverrides ? { overrides: (variant.overrides ?? []).map(({ contextName, values }) => ({ contextName, values })) } : {}),
      } satisfies Variant
    })
    .sort((a, b) => byName(a.name, b.name))
}
