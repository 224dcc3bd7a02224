/**
 * The flags of one project: exported from the source per environment, compared flag by flag with
 * the target's export, and only the flags that differ imported (Pennon's import replaces a flag's
 * strategies, so importing an unchanged flag would write events for nothing). What an import does
 * not undo is undone by the admin API: a parent the source no longer has, environment variants
 * the source has none of. Archived flags follow: archived on the target too, created there first
 * when missing (with their metadata and tags; an archived flag serves nothing).
 */
import { seg, type AdminClient } from './admin-client.ts'
import { chunks, flagFingerprints, mergeExports, parentsFirst, sliceExport, type ExportDoc } from './flag-diff.ts'
import type { Step } from './migrate-definitions.ts'
import { count } from './summary.ts'

/** Flags per export request, and per import (an import body is bounded by the target's BODY_LIMIT, 1 MiB by default). */
const EXPORT_CHUNK = 500
const IMPORT_CHUNK = 100

interface ArchivedFlag {
  name: string
  type?: string
  description?: string | null
  impressionData?: boolean
  tags?: Array<{ type: string; value: string }>
}

async function activeFlags(client: AdminClient, project: string): Promise<string[]> {
  return ((await client.get(`/api/admin/projects/${seg(project)}/features`)).features as Array<{ name: string }>).map((f) => f.name)
}

/** Unleash lists archived flags through its search API; Pennon (no search API) through the project's flag list. */
export async function archivedFlags(client: AdminClient, project: string): Promise<ArchivedFlag[]> {
  const found: ArchivedFlag[] = []
  const probe = await client.request('GET', `/api/admin/search/features?project=IS:${seg(project)}&archived=IS:true&limit=100&offset=0`)
  if (probe.status === 200 && Array.isArray(probe.body?.features)) {
    for (let offset = 0, page = probe.body; ; ) {
      found.push(...page.features.filter((f: any) => f.archivedAt != null || f.archived === true))
      offset += 100
      if (page.features.length < 100) return found
      page = await client.get(`/api/admin/search/features?project=IS:${seg(project)}&archived=IS:true&limit=100&offset=${offset}`)
    }
  }
  for (let offset = 0; ; offset += 1000) {
    const page = await client.get(`/api/admin/projects/${seg(project)}/features?archived=true&limit=1000&offset=${offset}`)
    found.push(...page.features)
    if (page.features.length < 1000) return found
  }
}

async function exportFlags(client: AdminClient, environment: string, names: string[]): Promise<ExportDoc> {
  const parts: ExportDoc[] = []
  for (const part of chunks(names, EXPORT_CHUNK))
    parts.push(await client.send('POST', '/api/admin/features-batch/export', { environment, features: part }))
  return mergeExports(parts)
}

export async function migrateFlags({ from, to, summary }: Step, project: string, environments: string[]): Promise<void> {
  const sourceNames = await activeFlags(from, project)
  const sourceArchived = await archivedFlags(from, project)
  const targetArchived = new Set((await archivedFlags(to, project)).map((f) => f.name))
  // The source says it is active: revive it here first (an import skips flags archived on its target).
  const revive = sourceNames.filter((name) => targetArchived.has(name))
  if (revive.length > 0) await to.send('POST', `/api/admin/projects/${seg(project)}/revive`, { features: revive })
  const targetNames = new Set(await activeFlags(to, project))

  const changed = new Set<string>()
  for (const environment of environments) {
    const source = await exportFlags(from, environment, sourceNames)
    const target = await exportFlags(
      to,
      environment,
      sourceNames.filter((name) => targetNames.has(name)),
    )
    const want = flagFingerprints(source)
    const have = flagFingerprints(target)
    const differ = sourceNames.filter((name) => want.get(name) !== have.get(name))
    for (const name of differ) changed.add(name)
    for (const part of chunks(parentsFirst(differ, source), IMPORT_CHUNK)) {
      await to.send('POST', '/api/admin/features-batch/import', { project, environment, data: sliceExport(source, new Set(part)) })
    }
    await undoWhatImportKeeps(to, project, environment, differ, source, target)
  }
  for (const name of sourceNames) count(summary, 'flags', !targetNames.has(name) ? 'created' : changed.has(name) ? 'updated' : 'unchanged')

  const targetActive = new Set(await activeFlags(to, project))
  for (const flag of sourceArchived) {
    const path = `/api/admin/projects/${seg(project)}/features/${seg(flag.name)}`
    if (targetArchived.has(flag.name)) {
      count(summary, 'archived flags', 'unchanged')
      continue
    }
    if (!targetActive.has(flag.name)) {
      await to.send('POST', `/api/admin/projects/${seg(project)}/features`, {
        name: flag.name,
        type: flag.type ?? 'release',
        description: flag.description ?? '',
        impressionData: flag.impressionData ?? false,
      })
      const tags = (flag.tags ?? []).map(({ type, value }) => ({ type, value }))
      if (tags.length > 0) await to.send('PUT', `/api/admin/features/${seg(flag.name)}/tags`, { addedTags: tags, removedTags: [] })
    }
    await to.send('DELETE', path)
    count(summary, 'archived flags', targetActive.has(flag.name) ? 'updated' : 'created')
  }
}

/** A parent removed on the source, or environment variants cleared there: an import leaves those as they were. */
async function undoWhatImportKeeps(
  to: AdminClient,
  project: string,
  environment: string,
  names: string[],
  source: ExportDoc,
  target: ExportDoc,
): Promise<void> {
  const hasParent = (data: ExportDoc) => new Set((data.dependencies ?? []).filter((d) => d.dependencies.length > 0).map((d) => d.feature))
  const variantsOf = (data: ExportDoc) =>
    new Map((data.featureEnvironments ?? []).map((e) => [e.featureName ?? e.name, (e.variants ?? []).length]))
  const [sourceParents, targetParents] = [hasParent(source), hasParent(target)]
  const [sourceVariants, targetVariants] = [variantsOf(source), variantsOf(target)]
  for (const name of names) {
    const flag = `/api/admin/projects/${seg(project)}/features/${seg(name)}`
    if (targetParents.has(name) && !sourceParents.has(name)) await to.send('DELETE', `${flag}/dependencies`)
    if ((targetVariants.get(name) ?? 0) > 0 && (sourceVariants.get(name) ?? 0) === 0)
      await to.send('PUT', `${flag}/environments/${seg(environment)}/variants`, [])
  }
}
