/**
 * Pure pieces of the flag migration: what one flag looks like in an export (so that the source's
 * and the target's can be compared without the ids and orders that may differ between servers),
 * the part of an export that holds some flags, and an order that imports parents before children.
 */
import { canonical } from './migrate-definitions.ts'

/** An export document (exportResultSchema), as either server answers it. */
export interface ExportDoc {
  features: any[]
  featureStrategies: any[]
  featureEnvironments?: any[]
  contextFields?: any[]
  featureTags?: any[]
  segments?: Array<{ id: number; name: string }>
  tagTypes?: any[]
  dependencies?: Array<{ feature: string; dependencies: Array<{ feature: string; enabled?: boolean; variants?: string[] }> }>
  links?: Array<{ feature: string; links: Array<{ id?: string; url: string; title?: string | null }> }>
}

const constraint = (c: any) => ({
  contextName: c.contextName,
  operator: c.operator,
  caseInsensitive: c.caseInsensitive ?? false,
  inverted: c.inverted ?? false,
  values: c.values ?? [],
  ...(c.value !== undefined ? { value: c.value } : {}),
})

const variant = (v: any) => {
  const { overrides, ...rest } = v
  return { ...rest, ...(Array.isArray(overrides) && overrides.length > 0 ? { overrides } : {}) }
}

/** Per flag, one string that is equal on both servers when the flag is the same there (in this export's environment). */
export function flagFingerprints(data: ExportDoc): Map<string, string> {
  const segmentNames = new Map((data.segments ?? []).map((s) => [s.id, s.name]))
  const environments = new Map((data.featureEnvironments ?? []).map((e) => [e.featureName ?? e.name, e]))
  const strategies = new Map<string, unknown[]>()
  for (const s of data.featureStrategies) {
    const list = strategies.get(s.featureName) ?? []
    list.push({
      name: s.name,
      title: s.title || null,
      disabled: s.disabled ?? false,
      parameters: s.parameters ?? {},
      constraints: (s.constraints ?? []).map(constraint),
      variants: s.variants ?? [],
      segments: (s.segments ?? []).map((id: number) => segmentNames.get(id) ?? `#${id}`),
    })
    strategies.set(s.featureName, list)
  }
  const tags = new Map<string, string[]>()
  for (const t of data.featureTags ?? []) tags.set(t.featureName, [...(tags.get(t.featureName) ?? []), `${t.tagType}:${t.tagValue}`])
  const parents = new Map(
    (data.dependencies ?? []).map((d) => [
      d.feature,
      d.dependencies.map((p) => ({ feature: p.feature, enabled: p.enabled ?? true, variants: p.variants ?? [] })),
    ]),
  )
  // Links by address and title, in their order (their ids are each server's own).
  const links = new Map<string, Array<{ url: string; title: string | null }>>()
  for (const l of data.links ?? [])
    links.set(l.feature, [...(links.get(l.feature) ?? []), ...l.links.map((link) => ({ url: link.url, title: link.title || null }))])
  const result = new Map<string, string>()
  for (const f of data.features) {
    const environment = environments.get(f.name)
    result.set(
      f.name,
      canonical({
        description: f.description || null,
        type: f.type,
        stale: f.stale ?? false,
        impressionData: f.impressionData ?? false,
        enabled: environment?.enabled ?? false,
        variants: (environment?.variants ?? []).map(variant),
        strategies: strategies.get(f.name) ?? [],
        tags: (tags.get(f.name) ?? []).sort(),
        parents: parents.get(f.name) ?? [],
        links: links.get(f.name) ?? [],
      }),
    )
  }
  return result
}

/** The part of an export about these flags (the lists of what they use are kept whole). */
export function sliceExport(data: ExportDoc, names: ReadonlySet<string>): ExportDoc {
  return {
    features: data.features.filter((f) => names.has(f.name)),
    featureStrategies: data.featureStrategies.filter((s) => names.has(s.featureName)),
    featureEnvironments: (data.featureEnvironments ?? []).filter((e) => names.has(e.featureName ?? e.name)),
    contextFields: data.contextFields ?? [],
    featureTags: (data.featureTags ?? []).filter((t) => names.has(t.featureName)),
    segments: data.segments ?? [],
    tagTypes: data.tagTypes ?? [],
    dependencies: (data.dependencies ?? []).filter((d) => names.has(d.feature)),
    links: (data.links ?? []).filter((l) => names.has(l.feature)),
  }
}

/** Several exports of one environment (chunks of flags) as one. */
export function mergeExports(parts: ExportDoc[]): ExportDoc {
  const unique = <T>(items: T[], key: (item: T) => unknown) => [...new Map(items.map((item) => [key(item), item])).values()]
  return {
    features: parts.flatMap((p) => p.features),
    featureStrategies: parts.flatMap((p) => p.featureStrategies),
    featureEnvironments: parts.flatMap((p) => p.featureEnvironments ?? []),
    contextFields: unique(
      parts.flatMap((p) => p.contextFields ?? []),
      (f) => f.name,
    ),
    featureTags: parts.flatMap((p) => p.featureTags ?? []),
    segments: unique(
      parts.flatMap((p) => p.segments ?? []),
      (s) => s.id,
    ),
    tagTypes: unique(
      parts.flatMap((p) => p.tagTypes ?? []),
      (t) => t.name,
    ),
    dependencies: parts.flatMap((p) => p.dependencies ?? []),
    links: parts.flatMap((p) => p.links ?? []),
  }
}

/** The names with every flag's parent (when among them) before it; otherwise by name. */
export function parentsFirst(names: Iterable<string>, data: ExportDoc): string[] {
  const wanted = new Set(names)
  const parentOf = new Map((data.dependencies ?? []).map((d) => [d.feature, d.dependencies[0]?.feature]))
  const depth = (name: string, seen = new Set<string>()): number => {
    const parent = parentOf.get(name)
    if (parent === undefined || !wanted.has(parent) || seen.has(parent)) return 0
    seen.add(name)
    return 1 + depth(parent, seen)
  }
  return [...wanted].sort((a, b) => depth(a) - depth(b) || (a < b ? -1 : a > b ? 1 : 0))
}

export const chunks = <T>(items: readonly T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size))
