/**
 * Each signed-in user's favorite flags and projects (favorite_features, favorite_projects,
 * migration 0023). Read by the flag search, the flag read and the projects list for the caller.
 */
import type { Kysely } from 'kysely'
import { inNames } from '../../db/name-set.ts'
import type { Database } from '../../db/tables.ts'

/** Marks a flag a favorite of the user; whether it was not one yet. */
export async function addFavoriteFeature(db: Kysely<Database>, userId: number, feature: string, at: string): Promise<boolean> {
  const rows = await db
    .insertInto('favorite_features')
    .values({ user_id: userId, feature, created_at: at })
    .onConflict((oc) => oc.columns(['user_id', 'feature']).doNothing())
    .returning('feature')
    .execute()
  return rows.length > 0
}

/** Whether the flag was a favorite of the user (it is not any more). */
export async function removeFavoriteFeature(db: Kysely<Database>, userId: number, feature: string): Promise<boolean> {
  const rows = await db
    .deleteFrom('favorite_features')
    .where('user_id', '=', userId)
    .where('feature', '=', feature)
    .returning('feature')
    .execute()
  return rows.length > 0
}

export async function addFavoriteProject(db: Kysely<Database>, userId: number, project: string, at: string): Promise<boolean> {
  const rows = await db
    .insertInto('favorite_projects')
    .values({ user_id: userId, project, created_at: at })
    .onConflict((oc) => oc.columns(['user_id', 'project']).doNothing())
    .returning('project')
    .execute()
  return rows.length > 0
}

export async function removeFavoriteProject(db: Kysely<Database>, userId: number, project: string): Promise<boolean> {
  const rows = await db
    .deleteFrom('favorite_projects')
    .where('user_id', '=', userId)
    .where('project', '=', project)
    .returning('project')
    .execute()
  return rows.length > 0
}

/** Which of the named flags are favorites of the user: a range of the key. */
export async function favoriteFeaturesAmong(db: Kysely<Database>, userId: number, names: readonly string[]): Promise<Set<string>> {
  if (names.length === 0) return new Set()
  const rows = await db
    .selectFrom('favorite_features')
    .select('feature')
    .where('user_id', '=', userId)
    .where(inNames(db, 'feature', names))
    .execute()
  return new Set(rows.map((row) => row.feature))
}

/** The user's favorite projects. */
export async function favoriteProjectsOf(db: Kysely<Database>, userId: number): Promise<Set<string>> {
  const rows = await db.selectFrom('favorite_projects').select('project').where('user_id', '=', userId).execute()
  return new Set(rows.map((row) => row.project))
}

/** The user's favorite flags, as a subquery (the flag search's filter and order). */
export function favoriteFeatureNames(db: Kysely<Database>, userId: number) {
  return db.selectFrom('favorite_features').select('feature').where('user_id', '=', userId)
}
