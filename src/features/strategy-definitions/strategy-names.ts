import type { Kysely } from 'kysely'
import type { ChangeWatch } from '../../db/change-watch.ts'
import type { Database } from '../../db/tables.ts'
import { createStrategyDefinitionStore } from './strategy-definition-store.ts'

/**
 * The names flag strategies may use: every definition's, built-in or custom (deprecated ones
 * too, as the reference). Remembered per the change watch's `'flags'` version, which a write to
 * `strategy_definitions` moves (here and, by its trigger, on other instances), so they are read
 * again only after something changed.
 */
export function createStrategyNames({ db, changes }: { db: Kysely<Database>; changes: ChangeWatch }) {
  let remembered: { version: number | undefined; names: ReadonlySet<string> } = { version: undefined, names: new Set() }
  // Reads may end out of order: a read that started earlier never replaces a later one's names.
  let started = 0
  let applied = 0

  return {
    /** The names last read, for rules that must answer at once (a route's report of a body its schema refused). */
    known: (): ReadonlySet<string> => remembered.names,

    /** Reads the names again if anything they depend on may have changed (before a route validates a body). */
    async refresh(): Promise<void> {
      const version = changes.version('flags')
      if (version !== undefined && version === remembered.version) return
      const read = ++started
      const names = new Set(await createStrategyDefinitionStore(db).names())
      if (read < applied) return
      applied = read
      // Kept for this version only if nothing was written meanwhile; the names are the latest known either way.
      remembered = { version: changes.version('flags') === version ? version : undefined, names }
    },

    /**
     * Inside a strategy write's transaction: the names, checked against the database for the one
     * it uses (held on PostgreSQL, so that definition cannot go before the write commits). When
     * what is remembered is wrong about it (another instance changed the definitions a moment
     * ago), they are read in the transaction instead.
     */
    async confirm(trx: Kysely<Database>, name: string): Promise<ReadonlySet<string>> {
      const store = createStrategyDefinitionStore(trx)
      const defined = await store.hold(name)
      const { names } = remembered
      return names.has(name) === defined ? names : new Set(await store.names())
    },
  }
}

export type StrategyNames = ReturnType<typeof createStrategyNames>
