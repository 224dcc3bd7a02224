import { AppError, notFound, quote } from '../../http/errors.ts'
import type { Flag } from './flag-store.ts'

/** A flag named in the path must exist in the project of the path. */
export function flagNotFound(name: string, project: string, holder: Pick<Flag, 'project'> | undefined): AppError {
  const elsewhere = holder ? `, but there is one in project ${quote(holder.project)}` : ''
  return notFound(`There's no flag named ${quote(name)} in project ${quote(project)}${elsewhere}.`)
}

/** An archived flag cannot change (its metadata, its environments): it is revived first. */
export const archivedFlag = (name: string): AppError =>
  new AppError(400, 'ArchivedFeatureError', `Flag ${quote(name)} is archived: revive it before changing it.`)
