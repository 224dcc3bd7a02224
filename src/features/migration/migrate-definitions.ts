/**
 * What flags stand on, copied from the source's admin API to the target's, each kind only where
 * it differs: environments, projects and which environments they have, tag types, context
 * fields, custom strategy definitions, segments (created in the source's id order, so segments
 * inlined into a strategy come out in the same order on both servers).
 */
import { seg, type AdminClient } from './admin-client.ts'
import { count, type Summary } from './summary.ts'

/** JSON with object keys sorted: two answers are equal whatever order their keys came in. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v,
  )
}

const same = (a: unknown, b: unknown): boolean => canonical(a) === canonical(b)

export interface Step {
  from: AdminClient
  to: AdminClient
  summary: Summary
}

export async function migrateEnvironments({ from, to, summary }: Step): Promise<string[]> {
  const source = (await from.get('/api/admin/environments')).environments as Array<{
    name: string
    type: string
    enabled: boolean
    sortOrder: number
  }>
  const target = new Set(((await to.get('/api/admin/environments')).environments as Array<{ name: string }>).map((e) => e.name))
  for (const { name, type, enabled, sortOrder } of source) {
    if (target.has(name)) {
      count(summary, 'environments', 'unchanged')
      continue
    }
    await to.send('POST', '/api/admin/environments', { name, type, enabled, sortOrder })
    count(summary, 'environments', 'created')
  }
  return source.map((e) => e.name)
}

/** The projects, and per project the environments it has on the source (returned, by project). */
export async function migrateProjects({ from, to, summary }: Step): Promise<Map<string, string[]>> {
  const source = (await from.get('/api/admin/projects')).projects as Array<{ id: string; name: string; description?: string | null }>
  const target = new Map(
    ((await to.get('/api/admin/projects')).projects as Array<{ id: string; name: string; description: string | null }>).map((p) => [
      p.id,
      p,
    ]),
  )
  const environments = new Map<string, string[]>()
  for (const { id, name, description } of source) {
    const existing = target.get(id)
    const wanted = { name, description: description || null }
    if (!existing) {
      await to.send('POST', '/api/admin/projects', { id, ...wanted })
      count(summary, 'projects', 'created')
    } else if (existing.name !== wanted.name || (existing.description || null) !== wanted.description) {
      await to.send('PUT', `/api/admin/projects/${seg(id)}`, wanted)
      count(summary, 'projects', 'updated')
    } else count(summary, 'projects', 'unchanged')

    const visible = async (client: AdminClient) =>
      ((await client.get(`/api/admin/environments/project/${seg(id)}`)).environments as Array<{ name: string; visible?: boolean }>)
        .filter((e) => e.visible !== false)
        .map((e) => e.name)
    const want = await visible(from)
    const have = new Set(await visible(to))
    environments.set(id, want)
    // Added before any is removed: a project keeps at least one environment throughout.
    for (const environment of want.filter((e) => !have.has(e))) {
      await to.send('POST', `/api/admin/projects/${seg(id)}/environments`, { environment })
      count(summary, 'project environments', 'created')
    }
    for (const environment of [...have].filter((e) => !want.includes(e))) {
      await to.send('DELETE', `/api/admin/projects/${seg(id)}/environments/${seg(environment)}`)
      count(summary, 'project environments', 'updated')
    }
    count(summary, 'project environments', 'unchanged', want.filter((e) => have.has(e)).length)
  }
  return environments
}

export async function migrateTagTypes({ from, to, summary }: Step): Promise<void> {
  const pick = (t: any) => ({ description: t.description ?? null, icon: t.icon ?? null, color: t.color ?? null })
  const target = new Map(((await to.get('/api/admin/tag-types')).tagTypes as any[]).map((t) => [t.name, t]))
  for (const tagType of (await from.get('/api/admin/tag-types')).tagTypes as any[]) {
    const existing = target.get(tagType.name)
    const wanted = pick(tagType)
    const body = Object.fromEntries(Object.entries(wanted).filter(([, v]) => v !== null))
    if (!existing) {
      await to.send('POST', '/api/admin/tag-types', { name: tagType.name, ...body })
      count(summary, 'tag types', 'created')
    } else if (!same(pick(existing), wanted)) {
      await to.send('PUT', `/api/admin/tag-types/${seg(tagType.name)}`, body)
      count(summary, 'tag types', 'updated')
    } else count(summary, 'tag types', 'unchanged')
  }
}

export async function migrateContextFields({ from, to, summary }: Step): Promise<void> {
  const pick = (f: any) => ({
    description: f.description || null,
    stickiness: f.stickiness ?? false,
    sortOrder: f.sortOrder ?? 0,
    legalValues: (f.legalValues ?? []).map((v: any) => ({ value: v.value, ...(v.description ? { description: v.description } : {}) })),
    ...(f.project ? { project: f.project } : {}),
  })
  const target = new Map(((await to.get('/api/admin/context?include=project')) as any[]).map((f) => [f.name, f]))
  for (const field of (await from.get('/api/admin/context?include=project')) as any[]) {
    const existing = target.get(field.name)
    const wanted = pick(field)
    const body = { ...wanted, description: wanted.description ?? '' }
    if (!existing) {
      await to.send('POST', '/api/admin/context', { name: field.name, ...body })
      count(summary, 'context fields', 'created')
    } else if (!same(pick(existing), wanted)) {
      await to.send('PUT', `/api/admin/context/${seg(field.name)}`, body)
      count(summary, 'context fields', 'updated')
    } else count(summary, 'context fields', 'unchanged')
  }
}

export async function migrateStrategyDefinitions({ from, to, summary }: Step): Promise<void> {
  const pick = (s: any) => ({
    title: s.title ?? null,
    description: s.description || null,
    parameters: (s.parameters ?? []).map((p: any) => ({
      name: p.name,
      type: p.type,
      description: p.description ?? '',
      required: p.required ?? false,
    })),
  })
  const target = new Map(((await to.get('/api/admin/strategies')).strategies as any[]).map((s) => [s.name, s]))
  for (const definition of ((await from.get('/api/admin/strategies')).strategies as any[]).filter((s) => s.editable)) {
    const existing = target.get(definition.name)
    const wanted = pick(definition)
    const body = {
      ...(wanted.title === null ? {} : { title: wanted.title }),
      ...(wanted.description === null ? {} : { description: wanted.description }),
      parameters: wanted.parameters,
    }
    let outcome: 'created' | 'updated' | 'unchanged' = 'unchanged'
    if (!existing) {
      await to.send('POST', '/api/admin/strategies', { name: definition.name, ...body })
      outcome = 'created'
    } else if (!same(pick(existing), wanted)) {
      await to.send('PUT', `/api/admin/strategies/${seg(definition.name)}`, body)
      outcome = 'updated'
    }
    if (Boolean(definition.deprecated) !== Boolean(existing?.deprecated ?? false)) {
      await to.send('POST', `/api/admin/strategies/${seg(definition.name)}/${definition.deprecated ? 'deprecate' : 'reactivate'}`)
      if (outcome === 'unchanged') outcome = 'updated'
    }
    count(summary, 'strategy definitions', outcome)
  }
}

export async function migrateSegments({ from, to, summary }: Step): Promise<void> {
  const constraint = (c: any) => ({
    contextName: c.contextName,
    operator: c.operator,
    caseInsensitive: c.caseInsensitive ?? false,
    inverted: c.inverted ?? false,
    ...(c.values !== undefined && !(c.value !== undefined && c.values.length === 0) ? { values: c.values } : {}),
    ...(c.value !== undefined ? { value: c.value } : {}),
  })
  const pick = (s: any) => ({
    name: s.name,
    description: s.description || null,
    constraints: (s.constraints ?? []).map(constraint),
    ...(s.project ? { project: s.project } : {}),
  })
  // Sent as the source has them (a segment keeps its constraints as written), compared without the defaults.
  const body = (s: any) => ({
    name: s.name,
    description: s.description || null,
    constraints: (s.constraints ?? []).map(({ contextName, operator, caseInsensitive, inverted, values, value }: any) => ({
      contextName,
      operator,
      caseInsensitive,
      inverted,
      values,
      value,
    })),
    ...(s.project ? { project: s.project } : {}),
  })
  const target = new Map(((await to.get('/api/admin/segments')).segments as any[]).map((s) => [s.name, s]))
  const source = [...((await from.get('/api/admin/segments')).segments as any[])].sort((a, b) => a.id - b.id)
  for (const segment of source) {
    const existing = target.get(segment.name)
    const wanted = pick(segment)
    if (!existing) {
      await to.send('POST', '/api/admin/segments', body(segment))
      count(summary, 'segments', 'created')
    } else if (!same(pick(existing), wanted)) {
      await to.send('PUT', `/api/admin/segments/${existing.id}`, body(segment))
      count(summary, 'segments', 'updated')
    } else count(summary, 'segments', 'unchanged')
  }
}
