/**
 * Favorites, as the reference's: a signed-in user marks flags and projects, each change with its
 * event (`feature-favorited`, `feature-unfavorited`, `project-favorited`, `project-unfavorited`) in
 * one transaction. Favorites belong to a person: a caller who is none (an API token, a service
 * account, AUTH_TYPE=none) is refused, where the reference fails with a 500.
 */
import type { Kysely } from 'kysely'
import { isForeignKeyViolation } from '../../db/db-errors.ts'
import type { Database } from '../../db/tables.ts'
import { forbidden, type AppError } from '../../http/errors.ts'
import type { Principal } from '../../http/permissions.ts'
import { auditContext } from '../events/audit.ts'
import { appendEvents } from '../events/event-store.ts'
import { flagOfPath } from '../flags/flag-service.ts'
import { projectNotFound } from '../projects/project-errors.ts'
import { createProjectStore } from '../projects/project-store.ts'
import {
  addFavoriteFeature,
  addFavoriteProject,
  favoriteFeaturesAmong,
  favoriteProjectsOf,
  removeFavoriteFeature,
  removeFavoriteProject,
} from './favorite-store.ts'

/** The user whose favorites a caller's are: people only (sessions and personal access tokens). */
export const favoritesOwner = (principal: Principal): number | undefined => (principal.kind === 'user' ? principal.userId : undefined)

/** The caller's favorite projects (none for a caller who is no person): what projects/ is handed by app.ts. */
export async function favoriteProjectsOfCaller(db: Kysely<Database>, principal: Principal): Promise<Set<string>> {
  const userId = favoritesOwner(principal)
  return userId === undefined ? new Set() : favoriteProjectsOf(db, userId)
}

/** Which of the named flags are the caller's favorites: what flags/ is handed by app.ts. */
export async function favoriteFlagsOfCaller(db: Kysely<Database>, principal: Principal, names: readonly string[]): Promise<Set<string>> {
  const userId = favoritesOwner(principal)
  return userId === undefined ? new Set() : favoriteFeaturesAmong(db, userId, names)
}

const noFavorites = (): AppError =>
  forbidden(
    'Favorites belong to a signed-in user (a session or a personal access token); an API token, a service account or AUTH_TYPE=none has none.',
    [],
  )

function ownerOf(principal: Principal): number {
  const userId = favoritesOwner(principal)
  if (userId === undefined) throw noFavorites()
  return userId
}

export function createFavoriteService({ db }: { db: Kysely<Database> }) {
  /** One change: the flag or project checked, the row written; the event only when something changed. */
  const change = (
    work: (trx: Kysely<Database>, at: string) => Promise<boolean>,
    event: Parameters<typeof appendEvents>[2][number],
    principal: Principal,
    gone: () => AppError,
  ) =>
    db
      .transaction()
      .execute(async (trx) => {
        const audit = auditContext(principal)
        if (await work(trx, audit.createdAt)) await appendEvents(trx, audit, [event])
      })
      .catch((error: unknown) => {
        // The flag or project went while this ran: as if it had not been there.
        throw isForeignKeyViolation(error) ? gone() : error
      })

  const projectGone = (project: string) => () => projectNotFound(project)

  async function requireProject(trx: Kysely<Database>, project: string): Promise<void> {
    if (!(await createProjectStore(trx).exists(project))) throw projectNotFound(project)
  }

  return {
    favoriteFeature: (project: string, feature: string, principal: Principal): Promise<void> => {
      const userId = ownerOf(principal)
      return change(
        async (trx, at) => {
          await flagOfPath(trx, project, feature, { hold: true })
          return addFavoriteFeature(trx, userId, feature, at)
        },
        { type: 'feature-favorited', featureName: feature, data: { feature } },
        principal,
        projectGone(project),
      )
    },

    unfavoriteFeature: (project: string, feature: string, principal: Principal): Promise<void> => {
      const userId = ownerOf(principal)
      return change(
        async (trx) => {
          await flagOfPath(trx, project, feature)
          return removeFavoriteFeature(trx, userId, feature)
        },
        { type: 'feature-unfavorited', featureName: feature, data: { feature } },
        principal,
        projectGone(project),
      )
    },

    favoriteProject: (project: string, principal: Principal): Promise<void> => {
      const userId = ownerOf(principal)
      return change(
        async (trx, at) => {
          await requireProject(trx, project)
          return addFavoriteProject(trx, userId, project, at)
        },
        { type: 'project-favorited', project, data: { project } },
        principal,
        projectGone(project),
      )
    },

    unfavoriteProject: (project: string, principal: Principal): Promise<void> => {
      const userId = ownerOf(principal)
      return change(
        async (trx) => {
          await requireProject(trx, project)
          return removeFavoriteProject(trx, userId, project)
        },
        { type: 'project-unfavorited', project, data: { project } },
        principal,
        projectGone(project),
      )
    },
  }
}

export type FavoriteService = ReturnType<typeof createFavoriteService>
