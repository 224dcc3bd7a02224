/**
 * Which applications SDK reports may add to (docs/metrics.md, "Limits"). An application already
 * recorded, or taken since, is always taken: its reports are never refused for a limit. A new
 * name is taken while fewer than `maxApplications` are known and the token reporting it (a client
 * or frontend token) has introduced fewer than `perToken` of them; otherwise the report is
 * ignored. So junk posted with a public frontend token fills at most that token's share, and
 * applications recorded before, or through other tokens, go on being counted.
 *
 * What is known is read from `client_applications` before the first report is taken, and again
 * after a flush at most every RELOAD_MS and after expired applications are removed (other
 * instances record applications too), keeping the names taken after the flushed batch was taken
 * (not written yet). Between two reads another instance's new names are not seen here: with n
 * instances, up to n times the limits may be taken in that time.
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'

const RELOAD_MS = 60_000

interface Known {
  /** The token that introduced it; null: an admin token (or AUTH_TYPE=none), or recorded before tokens were */
  token: string | null
  /** When this instance took it (ms), until it is read back from the database */
  takenAt?: number
}

export interface ApplicationLimits {
  maxApplications: number
  perToken: number
}

/** Why a new application was not taken, for the log. */
export type Refusal = 'applications' | 'token'

export function createApplicationAdmission({
  db,
  limits,
  now = Date.now,
}: {
  db: Kysely<Database>
  limits: ApplicationLimits
  now?: () => number
}) {
  let known: Map<string, Known> | undefined
  let introduced = new Map<string, number>()
  let loading: Promise<void> | undefined
  let readAt = Number.NEGATIVE_INFINITY

  async function read(keepSince: number): Promise<void> {
    const started = now()
    const rows = await db.selectFrom('client_applications').select(['app_name', 'token_name']).execute()
    const fresh = new Map<string, Known>(rows.map((row) => [row.app_name, { token: row.token_name }]))
    for (const [app, entry] of known ?? []) {
      if (entry.takenAt !== undefined && entry.takenAt >= keepSince && !fresh.has(app)) fresh.set(app, entry)
    }
    known = fresh
    introduced = new Map()
    for (const { token } of fresh.values()) if (token !== null) introduced.set(token, (introduced.get(token) ?? 0) + 1)
    readAt = started
  }

  return {
    /** Resolves once what is recorded has been read (at once after the first time). */
    ready(): Promise<void> | undefined {
      if (known !== undefined) return undefined
      loading ??= read(Number.NEGATIVE_INFINITY).catch((error: unknown) => {
        loading = undefined
        throw error
      })
      return loading
    },

    /**
     * Whether a report of `app` through `token` (null: an admin token) may be held: known, or new
     * and within the limits (then it is known from now on). Call after `ready()`.
     */
    admit(app: string, token: string | null): true | Refusal {
      if (known === undefined) throw new Error('application admission used before ready()')
      if (known.has(app)) return true
      if (known.size >= limits.maxApplications) return 'applications'
      if (token !== null && (introduced.get(token) ?? 0) >= limits.perToken) return 'token'
      known.set(app, { token, takenAt: now() })
      if (token !== null) introduced.set(token, (introduced.get(token) ?? 0) + 1)
      return true
    },

    /**
     * After a flush that wrote everything taken before `takenAt` (or a removal of expired
     * applications: `force`): reads the recorded names again if RELOAD_MS have passed.
     */
    async reload(takenAt: number, force = false): Promise<void> {
      if (known === undefined || (!force && now() - readAt < RELOAD_MS)) return
      await read(takenAt)
    },

    /** The token an application was taken through (null: an admin token, or not known). */
    introducer(app: string): string | null {
      return known?.get(app)?.token ?? null
    },

    /** Applications known: recorded, or taken since the last read. */
    get size(): number {
      return known?.size ?? 0
    },
  }
}

export type ApplicationAdmission = ReturnType<typeof createApplicationAdmission>
