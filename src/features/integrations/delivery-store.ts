/** The delivery side of integrations: who sends now (a lease), where each stands, and the delivery log. */
import type { Kysely, Selectable } from 'kysely'
import type { Database } from '../../db/tables.ts'
import type { ParameterValue } from './addon-store.ts'

export interface DueAddon {
  id: number
  provider: string
  parameters: Record<string, ParameterValue>
  events: string[]
  projects: string[]
  environments: string[]
  cursor: string
  attempts: number
  failingSince: string | null
}

export interface Attempt {
  integrationId: number
  createdAt: string
  state: 'success' | 'failed' | 'successWithErrors'
  stateDetails: string
  /** The event as stored (JSON text). */
  event: string
  details: Record<string, unknown>
}

const DUE_COLUMNS = ['id', 'provider', 'parameters', 'events', 'projects', 'environments', 'cursor', 'attempts', 'failing_since'] as const

type DueRow = Pick<Selectable<Database['addons']>, (typeof DUE_COLUMNS)[number]>

const dueAddon = (row: DueRow): DueAddon => ({
  id: Number(row.id),
  provider: row.provider,
  parameters: JSON.parse(row.parameters) as Record<string, ParameterValue>,
  events: JSON.parse(row.events) as string[],
  projects: JSON.parse(row.projects) as string[],
  environments: JSON.parse(row.environments) as string[],
  cursor: row.cursor,
  attempts: Number(row.attempts),
  failingSince: row.failing_since === null ? null : new Date(row.failing_since).toISOString(),
})

export function createDeliveryStore(db: Kysely<Database>) {
  return {
    /**
     * The enabled integrations of `providers` that no instance holds, with where each stands and
     * when its retry is due (null: none pending). A read: an instance with nothing to send writes
     * nothing (its writes would wake every instance's worker and caches).
     */
    async due(providers: readonly string[], now: string): Promise<{ id: number; cursor: string; retryAt: number | null }[]> {
      const rows = await db
        .selectFrom('addons')
        .select(['id', 'cursor', 'retry_at'])
        .where('enabled', '=', true)
        .where('provider', 'in', [...providers])
        .where((eb) => eb.or([eb('leased_until', 'is', null), eb('leased_until', '<', now)]))
        .orderBy('id')
        .execute()
      return rows.map((row) => ({
        id: Number(row.id),
        cursor: row.cursor,
        retryAt: row.retry_at === null ? null : new Date(row.retry_at).getTime(),
      }))
    },

    /**
     * Takes `ids` until `leaseUntil`, those still enabled and not held: one statement (PostgreSQL
     * checks its conditions again on a row another instance just took, so that one is skipped).
     */
    async claim(ids: readonly number[], now: string, leaseUntil: string): Promise<DueAddon[]> {
      if (ids.length === 0) return []
      const rows = await db
        .updateTable('addons')
        .set({ leased_until: leaseUntil })
        .where('id', 'in', [...ids])
        .where('enabled', '=', true)
        .where((eb) => eb.or([eb('leased_until', 'is', null), eb('leased_until', '<', now)]))
        .returning(DUE_COLUMNS)
        .execute()
      return rows.map(dueAddon).sort((x, y) => x.id - y.id)
    },

    /**
     * Past `cursor` (from `from`, where this instance left it), nothing failing; the lease extended,
     * or given back (`null`). Answers the integration as it is now, or undefined when it was
     * disabled, deleted or started again elsewhere (enabled anew: its cursor moved) meanwhile, so
     * the sender stops there and a change of its settings is used from the next send.
     */
    async advance(id: number, from: string, cursor: string, leaseUntil: string | null): Promise<DueAddon | undefined> {
      const row = await db
        .updateTable('addons')
        .set({ cursor, leased_until: leaseUntil, attempts: 0, retry_at: null, failing_since: null })
        .where('id', '=', id)
        .where('enabled', '=', true)
        .where('cursor', '=', from)
        .returning(DUE_COLUMNS)
        .executeTakeFirst()
      return row && dueAddon(row)
    },

    /** A failed send (the events before it done, up to `cursor`): tried again at `retryAt`; the lease given back. */
    async retryLater(id: number, cursor: string, attempts: number, retryAt: string, failingSince: string): Promise<void> {
      await db
        .updateTable('addons')
        .set({ cursor, attempts, retry_at: retryAt, failing_since: failingSince, leased_until: null })
        .where('id', '=', id)
        .execute()
    },

    async release(id: number): Promise<void> {
      await db.updateTable('addons').set({ leased_until: null }).where('id', '=', id).execute()
    },

    async recordAll(attempts: readonly Attempt[]): Promise<void> {
      if (attempts.length === 0) return
      await db
        .insertInto('integration_events')
        .values(
          attempts.map((attempt) => ({
            integration_id: attempt.integrationId,
            created_at: attempt.createdAt,
            state: attempt.state,
            state_details: attempt.stateDetails,
            event: attempt.event,
            details: JSON.stringify(attempt.details),
          })),
        )
        .execute()
    },

    /** Keeps the newest `keep` tries of an integration (the (integration_id, id) index). */
    async prune(integrationId: number, keep: number): Promise<void> {
      const oldestKept = await db
        .selectFrom('integration_events')
        .select('id')
        .where('integration_id', '=', integrationId)
        .orderBy('integration_id', 'desc')
        .orderBy('id', 'desc')
        .offset(keep - 1)
        .limit(1)
        .executeTakeFirst()
      if (oldestKept === undefined) return
      await db.deleteFrom('integration_events').where('integration_id', '=', integrationId).where('id', '<', oldestKept.id).execute()
    },

    /** An integration's delivery log, newest first. */
    async attempts(integrationId: number, limit: number, offset: number) {
      const rows = await db
        .selectFrom('integration_events')
        .selectAll()
        .where('integration_id', '=', integrationId)
        .orderBy('integration_id', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute()
      return rows.map((row) => ({
        id: String(row.id),
        integrationId: Number(row.integration_id),
        createdAt: new Date(row.created_at).toISOString(),
        state: row.state as Attempt['state'],
        stateDetails: row.state_details,
        event: JSON.parse(row.event) as unknown,
        details: JSON.parse(row.details) as Record<string, unknown>,
      }))
    },
  }
}
