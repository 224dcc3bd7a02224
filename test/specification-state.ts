/**
 * The Unleash client specification's files, and each file's `state` created in Pennon through
 * its admin API only (segments, flags, strategies, variants, dependencies, switches), as an
 * operator would. A flag whose state Pennon refuses to hold (its rules differ from what the file
 * describes) is reported with the answer that refused it, and so is every flag depending on it.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { call, type TestApp } from './test-app.ts'

export interface SpecificationTest {
  description: string
  context: Record<string, unknown>
  toggleName: string
  expectedResult: unknown
}

export interface SpecificationFile {
  name: string
  state: SpecState | { events: DeltaEvent[] }
  tests?: SpecificationTest[]
  variantTests?: SpecificationTest[]
}

interface SpecVariant {
  name: string
  weight: number
  weightType?: string
  stickiness?: string
  payload?: { type: string; value: string }
  overrides?: Array<{ contextName: string; values: string[] }>
}
interface SpecStrategy {
  name: string
  parameters?: Record<string, unknown>
  constraints?: unknown[]
  segments?: number[]
  variants?: SpecVariant[]
}
interface SpecFeature {
  name: string
  enabled: boolean
  strategies?: SpecStrategy[]
  variants?: SpecVariant[] | null
  dependencies?: Array<{ feature: string; enabled?: boolean; variants?: string[] }>
  impressionData?: boolean
}
interface SpecSegment {
  id: number
  name?: string
  constraints: unknown[]
}
interface SpecState {
  features: SpecFeature[]
  segments?: SpecSegment[]
}
type DeltaEvent =
  | { type: 'hydration'; features: SpecFeature[]; segments?: SpecSegment[] }
  | { type: 'feature-updated'; feature: SpecFeature }
  | { type: 'feature-removed'; featureName: string }
  | { type: 'segment-updated'; segment: SpecSegment }
  | { type: 'segment-removed'; segmentId: number }

const require = createRequire(import.meta.url)
const directory = join(dirname(require.resolve('@unleash/client-specification/package.json')), 'specifications')

export const specificationFiles = (): string[] => JSON.parse(readFileSync(join(directory, 'index.json'), 'utf8'))

export const readSpecificationFile = (fileName: string): SpecificationFile => JSON.parse(readFileSync(join(directory, fileName), 'utf8'))

/**
 * The state of a file: its payload, or, for the delta API's files (19, 20), the flags and
 * segments its events leave, applied in order as the SDK applies them. Pennon serves the
 * polling API, so the state is what matters: the SDK reads it from Pennon.
 */
export function stateOf(file: SpecificationFile): SpecState {
  if (!('events' in file.state)) return file.state
  let features = new Map<string, SpecFeature>()
  let segments = new Map<number, SpecSegment>()
  for (const event of file.state.events) {
    if (event.type === 'hydration') {
      features = new Map(event.features.map((feature) => [feature.name, feature]))
      segments = new Map((event.segments ?? []).map((segment) => [segment.id, segment]))
    } else if (event.type === 'feature-updated') features.set(event.feature.name, event.feature)
    else if (event.type === 'feature-removed') features.delete(event.featureName)
    else if (event.type === 'segment-updated') segments.set(event.segment.id, event.segment)
    else if (event.type === 'segment-removed') segments.delete(event.segmentId)
  }
  return { features: [...features.values()], segments: [...segments.values()] }
}

/**
 * Variants with the weights the file gives. SDKs pick among them by weight over their sum, and
 * Pennon stores weights that sum to 1000: a list whose weights sum to 1000 is sent as fixed
 * weights, one variant alone as the whole 1000 (the same choice whatever its weight), any other
 * as fixed weights too, which Pennon refuses — so the flag is reported, never stored altered.
 */
function exactVariants(variants: SpecVariant[], withOverrides: boolean) {
  const alone = variants.length === 1
  return variants.map((variant) => ({
    name: variant.name,
    weight: alone ? 1000 : variant.weight,
    weightType: 'fix',
    stickiness: variant.stickiness ?? 'default',
    ...(variant.payload ? { payload: variant.payload } : {}),
    ...(withOverrides && variant.overrides ? { overrides: variant.overrides } : {}),
  }))
}

export interface CreatedState {
  /** Flags Pennon would not hold as the file describes them, with why. */
  refused: Map<string, string>
}

const why = (response: { status: number; body?: { message?: string } }) => `${response.status} ${response.body?.message ?? ''}`.trim()

/** Creates a file's state in project default, environment `environment`, through the admin API. */
export async function createSpecificationState(pennon: TestApp, state: SpecState, environment = 'development'): Promise<CreatedState> {
  const refused = new Map<string, string>()
  const segmentIds = new Map<number, number>()
  const refusedSegments = new Map<number, string>()
  for (const segment of state.segments ?? []) {
    const response = await call(pennon, 'POST', '/api/admin/segments', {
      name: segment.name ?? `segment-${segment.id}`,
      constraints: segment.constraints,
    })
    if (response.status === 201) segmentIds.set(segment.id, response.body.id)
    else refusedSegments.set(segment.id, `segment ${segment.id}: ${why(response)}`)
  }

  const features = '/api/admin/projects/default/features'
  const place = (name: string) => `${features}/${encodeURIComponent(name)}/environments/${environment}`
  const refuse = (name: string, reason: string) => void (refused.has(name) || refused.set(name, reason))

  for (const feature of state.features) {
    const created = await call(pennon, 'POST', features, { name: feature.name, impressionData: feature.impressionData ?? false })
    if (created.status !== 201) {
      refuse(feature.name, `flag: ${why(created)}`)
      continue
    }
    for (const strategy of feature.strategies ?? []) {
      const missing = (strategy.segments ?? []).find((id) => !segmentIds.has(id))
      if (missing !== undefined) {
        refuse(feature.name, refusedSegments.get(missing) ?? `segment ${missing} is not in the file`)
        break
      }
      const added = await call(pennon, 'POST', `${place(feature.name)}/strategies`, {
        name: strategy.name,
        parameters: strategy.parameters ?? {},
        constraints: strategy.constraints ?? [],
        segments: (strategy.segments ?? []).map((id) => segmentIds.get(id)),
        variants: exactVariants(strategy.variants ?? [], false),
      })
      if (added.status !== 200) {
        refuse(feature.name, `strategy ${strategy.name}: ${why(added)}`)
        break
      }
    }
    if (feature.variants && feature.variants.length > 0) {
      const variants = await call(pennon, 'PUT', `${place(feature.name)}/variants`, exactVariants(feature.variants, true))
      if (variants.status !== 200) refuse(feature.name, `variants: ${why(variants)}`)
    }
    if (feature.enabled && !refused.has(feature.name)) {
      const on = await call(pennon, 'POST', `${place(feature.name)}/on`)
      if (on.status !== 200) refuse(feature.name, `on: ${why(on)}`)
    }
  }

  // Dependencies once every flag exists. Pennon holds one parent per flag, one level deep.
  for (const feature of state.features) {
    const parents = feature.dependencies ?? []
    if (parents.length === 0 || refused.has(feature.name)) continue
    if (parents.length > 1) {
      refuse(feature.name, `dependencies: ${parents.length} parents, and a Pennon flag has at most one`)
      continue
    }
    const [parent] = parents
    const body = {
      feature: parent!.feature,
      ...(parent!.enabled === undefined ? {} : { enabled: parent!.enabled }),
      ...(parent!.variants ? { variants: parent!.variants } : {}),
    }
    const added = await call(pennon, 'POST', `${features}/${encodeURIComponent(feature.name)}/dependencies`, body)
    if (added.status !== 200) refuse(feature.name, `dependency on ${parent!.feature}: ${why(added)}`)
  }
  // A flag depending on one Pennon refused would be evaluated against another state than the file's.
  for (let changed = true; changed; ) {
    changed = false
    for (const feature of state.features) {
      const parent = (feature.dependencies ?? []).find((dependency) => refused.has(dependency.feature))
      if (parent && !refused.has(feature.name)) {
        refuse(feature.name, `its parent ${parent.feature} was refused`)
        changed = true
      }
    }
  }
  return { refused }
}

/**
 * The flags whose evaluation reads the context's remoteAddress (a remoteAddress strategy, or a
 * constraint on it, in the flag or its segments). The frontend API fills a missing remoteAddress
 * with the caller's address, as the reference does, so a test about a missing one cannot hold there.
 */
export function readingRemoteAddress(state: SpecState): Set<string> {
  const segments = new Map((state.segments ?? []).map((segment) => [segment.id, segment]))
  const mentions = (constraints: unknown[] | undefined) =>
    (constraints ?? []).some((c) => (c as { contextName?: string }).contextName === 'remoteAddress')
  return new Set(
    state.features
      .filter((feature) =>
        (feature.strategies ?? []).some(
          (strategy) =>
            strategy.name === 'remoteAddress' ||
            mentions(strategy.constraints) ||
            (strategy.segments ?? []).some((id) => mentions(segments.get(id)?.constraints)),
        ),
      )
      .map((feature) => feature.name),
  )
}

/** A file's tests, each marked with what it asks: whether the flag is on, or its variant. */
export type SpecificationCase = SpecificationTest & { kind: 'isEnabled' | 'getVariant' }
export function casesOf(file: SpecificationFile): SpecificationCase[] {
  return [
    ...(file.tests ?? []).map((t) => ({ ...t, kind: 'isEnabled' as const })),
    ...(file.variantTests ?? []).map((t) => ({ ...t, kind: 'getVariant' as const })),
  ]
}

/** The flags whose rollout reads the sessionId (a frontend SDK without one gets a random one, so they are not applicable there). */
export function readingSessionId(state: SpecState): Set<string> {
  return new Set(state.features.filter((f) => (f.strategies ?? []).some((s) => s.name === 'gradualRolloutSessionId')).map((f) => f.name))
}
