/**
 * What environments/ asks of the flags in its environments (environments/flags-of-environments.ts),
 * handed to it by app.ts: the enabled counts, a project's flags' rows as an environment joins or
 * leaves the project.
 */
import type { FlagsOfEnvironments } from '../environments/flags-of-environments.ts'
import { createFlagEnvironmentStore } from './flag-environment-store.ts'

export const flagsOfEnvironments = {
  enabledCounts: (db, project) => createFlagEnvironmentStore(db).enabledCounts(project),
  addToProject: (trx, project, environment) => createFlagEnvironmentStore(trx).addEnvironmentOfProject(project, environment),
  removeFromProject: (trx, project, environment) => createFlagEnvironmentStore(trx).removeEnvironmentOfProject(project, environment),
} satisfies FlagsOfEnvironments
