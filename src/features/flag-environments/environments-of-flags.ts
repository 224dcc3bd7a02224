/**
 * What flags/ asks of its flags' environments (flags/environments-of-flags.ts), handed to it by
 * app.ts: a new flag's rows, the flag read's environments, archived flags switched off.
 */
import type { Static } from '@sinclair/typebox'
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import type { EnvironmentsOfFlags } from '../flags/environments-of-flags.ts'
import { FeatureEnvironmentResponse } from './flag-environment-schemas.ts'
import { describeEnvironment } from './flag-environment-service.ts'
import { createFlagEnvironmentStore } from './flag-environment-store.ts'
import { createStrategyStore } from './strategy-store.ts'

/** A flag's environments, each with its strategies: for the flag read. */
async function environmentsOfFlag(db: Kysely<Database>, feature: string): Promise<Array<Static<typeof FeatureEnvironmentResponse>>> {
  const [states, byEnvironment] = await Promise.all([
    createFlagEnvironmentStore(db).list(feature),
    createStrategyStore(db).listByEnvironment(feature),
  ])
  return states.map((state) => describeEnvironment(state, byEnvironment.get(state.name) ?? []))
}

export const environmentsOfFlags = {
  addNewFlag: (trx, feature, project) => createFlagEnvironmentStore(trx).addNewFlag(feature, project),
  switchOffEverywhere: (trx, features) => createFlagEnvironmentStore(trx).disableEverywhere(features),
  ofFlag: environmentsOfFlag,
  schema: FeatureEnvironmentResponse,
} satisfies EnvironmentsOfFlags
