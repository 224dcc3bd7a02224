/**
 * Every file of the Unleash client specification (@unleash/client-specification, listed in its
 * index.json): an evaluator is built from the file's `state` and every `tests[]` (isEnabled) and
 * `variantTests[]` (getVariant) expectation is asserted with the test's context.
 *
 * The same expectations hold for the explain mode (explain.ts): `explainAll` of an evaluator made
 * with `{ explain: true }` must answer every test as isEnabled and getVariant do.
 *
 * Files 19 and 20 describe the delta API: their state is a list of events instead of a
 * payload. The SDK applies them to its feature and segment maps; `stateFromEvents` does the
 * same to build the equivalent payload, so those files run too.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { after, describe, test } from 'node:test'
import { createEvaluator } from './evaluate.ts'
import { DISABLED_VARIANT } from './variants.ts'
import type { ClientFeaturesPayload, EvaluationContext, FeatureDefinition, SegmentDefinition } from './types.ts'

interface SpecificationFile {
  name: string
  state: ClientFeaturesPayload | { events: DeltaEvent[] }
  tests?: Array<{ description: string; context: EvaluationContext; toggleName: string; expectedResult: boolean }>
  variantTests?: Array<{ description: string; context: EvaluationContext; toggleName: string; expectedResult: Record<string, unknown> }>
}

type DeltaEvent =
  | { type: 'hydration'; features: FeatureDefinition[]; segments?: SegmentDefinition[] }
  | { type: 'feature-updated'; feature: FeatureDefinition }
  | { type: 'feature-removed'; featureName: string }
  | { type: 'segment-updated'; segment: SegmentDefinition }
  | { type: 'segment-removed'; segmentId: number }

const require = createRequire(import.meta.url)
const directory = join(dirname(require.resolve('@unleash/client-specification/package.json')), 'specifications')
const fileNames: string[] = JSON.parse(readFileSync(join(directory, 'index.json'), 'utf8'))

/** The payload the SDK ends up with after applying delta events in order. */
function stateFromEvents(events: DeltaEvent[]): ClientFeaturesPayload {
  let features = new Map<string, FeatureDefinition>()
  let segments = new Map<number, SegmentDefinition>()
  for (const event of events) {
    switch (event.type) {
      case 'hydration':
        features = new Map(event.features.map((feature) => [feature.name, feature]))
        segments = new Map((event.segments ?? []).map((segment) => [segment.id, segment]))
        break
      case 'feature-updated':
        features.set(event.feature.name, event.feature)
        break
      case 'feature-removed':
        features.delete(event.featureName)
        break
      case 'segment-updated':
        segments.set(event.segment.id, event.segment)
        break
      case 'segment-removed':
        segments.delete(event.segmentId)
        break
      default:
        throw new Error(`unknown delta event ${JSON.stringify(event)}`)
    }
  }
  return { features: [...features.values()], segments: [...segments.values()] }
}

const counts: string[] = []
after(() => console.log(`client specification:\n${counts.join('\n')}`))

test('the specification index lists 22 files', () => {
  assert.equal(fileNames.length, 22)
})

for (const fileName of fileNames) {
  const file: SpecificationFile = JSON.parse(readFileSync(join(directory, fileName), 'utf8'))
  const state = 'events' in file.state ? stateFromEvents(file.state.events) : file.state
  const evaluator = createEvaluator(state)
  const explaining = createEvaluator(state, { explain: true })
  const explained = (toggleName: string, context: EvaluationContext) =>
    explaining.explainAll(context).find((explanation) => explanation.name === toggleName) ?? { isEnabled: false, variant: DISABLED_VARIANT }
  const tests = file.tests ?? []
  const variantTests = file.variantTests ?? []
  counts.push(`  ${fileName}: ${tests.length} isEnabled + ${variantTests.length} getVariant`)

  describe(fileName, () => {
    test('has expectations', () => assert.ok(tests.length + variantTests.length > 0))
    for (const { description, context, toggleName, expectedResult } of tests) {
      test(`isEnabled: ${description}`, () => {
        assert.equal(evaluator.isEnabled(toggleName, context), expectedResult)
        assert.equal(explained(toggleName, context).isEnabled, expectedResult, 'explain mode')
      })
    }
    for (const { description, context, toggleName, expectedResult } of variantTests) {
      test(`getVariant: ${description}`, () => {
        const { featureEnabled, ...variant } = evaluator.getVariant(toggleName, context)
        // The SDK also returns the deprecated `featureEnabled`, which the files leave out.
        assert.equal(featureEnabled, variant.feature_enabled)
        assert.deepEqual(variant, expectedResult)
        const { featureEnabled: _, ...explainedVariant } = explained(toggleName, context).variant
        assert.deepEqual(explainedVariant, expectedResult, 'explain mode')
      })
    }
  })
}
