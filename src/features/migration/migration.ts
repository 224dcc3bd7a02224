/**
 * One migration run: everything the source's admin API shows, written into the target's, in the
 * order things depend on each other. Idempotent: each step writes only what differs, so a second
 * run writes nothing, and its summary says so.
 */
import type { AdminClient } from './admin-client.ts'
import {
  migrateContextFields,
  migrateEnvironments,
  migrateProjects,
  migrateSegments,
  migrateStrategyDefinitions,
  migrateTagTypes,
} from './migrate-definitions.ts'
import { migrateFlags } from './migrate-flags.ts'
import { createSummary, type Summary } from './summary.ts'

export const TOKENS_NOTE =
  'API tokens: not migrated. Unleash does not show token secrets through its API. Create the tokens your SDKs need on Pennon ' +
  '(POST /api/admin/api-tokens {tokenName, type, environment, projects}) and give the new secrets to the SDKs: see docs/migration.md.'

export async function runMigration(from: AdminClient, to: AdminClient, progress: (line: string) => void = () => {}): Promise<Summary> {
  const summary = createSummary()
  const step = { from, to, summary }
  progress('environments')
  await migrateEnvironments(step)
  progress('projects')
  const projects = await migrateProjects(step)
  progress('tag types, context fields, strategy definitions, segments')
  await migrateTagTypes(step)
  await migrateContextFields(step)
  await migrateStrategyDefinitions(step)
  await migrateSegments(step)
  for (const [project, environments] of projects) {
    progress(`flags of project ${project}`)
    await migrateFlags(step, project, environments)
  }
  return summary
}
