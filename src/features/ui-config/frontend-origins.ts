/**
 * The origins whose pages may call the frontend API (and OFREP) from a browser: the reference's
 * `unleash.frontend` setting `{frontendApiOrigins}`, set by POST /ui-config/cors; while none is
 * stored, FRONTEND_API_ORIGINS (default `*`). Stored in the database, so every instance follows:
 * each remembers it while the change watch says nothing changed (a change by another instance is
 * heard within milliseconds), so the SDK pipeline's check costs no query.
 */
import type { Kysely } from 'kysely'
import type { ChangeWatch } from '../../db/change-watch.ts'
import type { Database } from '../../db/tables.ts'
import { invalid } from '../../http/errors.ts'
import { auditContext, type Actor } from '../events/audit.ts'
import { appendEvents } from '../events/event-store.ts'
import { createSettingsStore } from '../maintenance/settings-store.ts'

/** The setting's name, as the reference names it in its settings table and events. */
export const FRONTEND_SETTING = 'unleash.frontend'

/** `*`, or an origin exactly as a URL's origin is written (`https://shop.example.com`, no path, no wildcard), as the reference checks. */
export function validOrigin(origin: string): boolean {
  if (origin === '*') return true
  if (origin.includes('*')) return false
  try {
    return new URL(origin).origin === origin
  } catch {
    return false
  }
}

interface FrontendSetting {
  frontendApiOrigins: string[]
  [key: string]: unknown
}

/** The stored setting, if it is one (anything else: none, the default applies). */
function asSetting(value: unknown): FrontendSetting | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const origins = (value as { frontendApiOrigins?: unknown }).frontendApiOrigins
  if (!Array.isArray(origins) || !origins.every((origin) => typeof origin === 'string')) return undefined
  return value as FrontendSetting
}

export function createFrontendOrigins({
  db,
  changes,
  defaults,
}: {
  db: Kysely<Database>
  changes: ChangeWatch
  defaults: readonly string[]
}) {
  let remembered: { version: number; origins: readonly string[] } | undefined
  let reading: { version: number | undefined; promise: Promise<readonly string[]> } | undefined

  async function read(version: number | undefined): Promise<readonly string[]> {
    const origins = asSetting(await createSettingsStore(db).read(FRONTEND_SETTING))?.frontendApiOrigins ?? defaults
    if (version !== undefined && changes.version('settings') === version) remembered = { version, origins }
    return origins
  }

  return {
    /** The origins in force: no query while the database has not changed since they were read. */
    current(): readonly string[] | Promise<readonly string[]> {
      const version = changes.version('settings')
      if (version !== undefined && remembered?.version === version) return remembered.origins
      if (version !== undefined && reading?.version === version) return reading.promise
      const promise = read(version).finally(() => {
        if (reading?.promise === promise) reading = undefined
      })
      reading = { version, promise }
      return promise
    },

    /**
     * Stores them (400 for one that is no origin). As the reference: `setting-created` the first
     * time, `setting-updated` after (data `{id, …setting}`, preData the setting before), in the
     * same transaction; none when they already are so.
     */
    set: (origins: string[], actor: Actor): Promise<void> => {
      const bad = origins.find((origin) => !validOrigin(origin))
      if (bad !== undefined) throw invalid(`Invalid origin: ${bad}`)
      return db.transaction().execute(async (trx) => {
        const store = createSettingsStore(trx)
        const stored = asSetting(await store.read(FRONTEND_SETTING))
        const setting = { ...(stored ?? {}), frontendApiOrigins: origins }
        if (stored !== undefined && JSON.stringify(stored.frontendApiOrigins) === JSON.stringify(origins)) return
        const { before, created } = await store.put(FRONTEND_SETTING, setting)
        const data = { id: FRONTEND_SETTING, ...setting }
        await appendEvents(
          trx,
          auditContext(actor),
          created ? [{ type: 'setting-created', data }] : [{ type: 'setting-updated', data, preData: (before ?? {}) as object }],
        )
      })
    },
  }
}

export type FrontendOrigins = ReturnType<typeof createFrontendOrigins>
