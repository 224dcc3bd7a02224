/**
 * Every route under `/projects/:projectId/features/:featureName/environments/:environment`
 * starts here: the flag must be one of the project's, the environment one of the project's.
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import type { AppError } from '../../http/errors.ts'
import { createProjectStore } from '../projects/project-store.ts'
import { archivedFlag, flagNotFound } from '../flags/flag-errors.ts'
import { projectNotFound } from '../projects/project-errors.ts'
import { createFlagStore, type Flag } from '../flags/flag-store.ts'
import { environmentNotFound, environmentNotInProject } from '../environments/environment-service.ts'
import { createEnvironmentStore } from '../environments/environment-store.ts'
import { createFlagEnvironmentStore, type FeatureEnvironment } from './flag-environment-store.ts'

export interface FlagEnvironmentPlace {
  project: string
  feature: string
  environment: string
}

/** The place named by a route's path parameters. */
export const placeOf = (params: { projectId: string; featureName: string; environment: string }): FlagEnvironmentPlace => ({
  project: params.projectId,
  feature: params.featureName,
  environment: params.environment,
})

export interface FlagEnvironment {
  flag: Flag
  state: FeatureEnvironment
}

/** Why a flag's environment row was not found: the project, the flag or the environment. */
async function whyMissing(db: Kysely<Database>, place: FlagEnvironmentPlace, flag: Flag | undefined): Promise<AppError> {
  if (!flag || flag.project !== place.project) {
    return (await createProjectStore(db).exists(place.project))
      ? flagNotFound(place.feature, place.project, flag)
      : projectNotFound(place.project)
  }
  return (await createEnvironmentStore(db).find(place.environment))
    ? environmentNotInProject(place.environment, place.project)
    : environmentNotFound(place.environment)
}

/** Reads a flag's state in an environment, or throws the 404 that says which part of the path is wrong. */
export async function findFlagEnvironment(db: Kysely<Database>, place: FlagEnvironmentPlace): Promise<FlagEnvironment> {
  const flag = await createFlagStore(db).find(place.feature)
  const state =
    flag?.project === place.project
      ? (await createFlagEnvironmentStore(db).list(place.feature)).find((e) => e.name === place.environment)
      : undefined
  if (!flag || !state) throw await whyMissing(db, place, flag)
  return { flag, state }
}

/**
 * For a change, inside its transaction: locks the flag's row in the environment first (the
 * lock every change there takes, so concurrent changes queue), then reads the flag, so an
 * archive that committed meanwhile is seen. An archived flag cannot change.
 */
export async function lockFlagEnvironment(trx: Kysely<Database>, place: FlagEnvironmentPlace): Promise<FlagEnvironment> {
  const state = await createFlagEnvironmentStore(trx).lock(place.feature, place.environment)
  const flag = await createFlagStore(trx).find(place.feature)
  if (!flag || flag.project !== place.project || !state) throw await whyMissing(trx, place, flag)
  if (flag.archived) throw archivedFlag(flag.name)
  return { flag, state }
}
