/** What the playground asks the database itself: which of the environments and projects named exist. */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'

export async function existingEnvironments(db: Kysely<Database>, names: readonly string[]): Promise<Set<string>> {
  if (names.length === 0) return new Set()
  const rows = await db.selectFrom('environments').select('name').where('name', 'in', [...names]).execute()
  return new Set(rows.map((row) => row.name))
}

export async function existingProjects(db: Kysely<Database>, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set()
  const rows = await db.selectFrom('projects').select('id').where('id', 'in', [...ids]).execute()
  return new Set(rows.map((row) => row.id))
}
