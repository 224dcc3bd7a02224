/**
 * What flags ask of their environments. A flag's state in an environment belongs to
 * flag-environments/, which sits above flags/: app.ts hands these few functions over
 * (flag-environments/environments-of-flags.ts), and flags/ never imports that folder.
 */
import type { TSchema } from '@sinclair/typebox'
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'

/** One environment of a flag as the flag read shows it; flags/ reads only its lastSeenAt. */
export interface EnvironmentOfFlag {
  lastSeenAt: string | null
}

export interface EnvironmentsOfFlags {
  /** Inside a flag's creation: its row in each environment of its project, off. */
  addNewFlag(trx: Kysely<Database>, feature: string, project: string): Promise<void>
  /** Inside an archive: the flags switched off everywhere; where each was on, by flag then environment. */
  switchOffEverywhere(trx: Kysely<Database>, features: readonly string[]): Promise<Array<{ feature: string; environment: string }>>
  /** A flag's environments as its read shows them (state, strategies, variants), by sort order. */
  ofFlag(db: Kysely<Database>, feature: string): Promise<EnvironmentOfFlag[]>
  /** The response schema of one of them, in the flag read's answer. */
  schema: TSchema
}
