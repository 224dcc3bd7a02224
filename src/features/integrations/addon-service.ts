/**
 * Integrations ("addons"): created, changed and deleted, each with its event in one transaction.
 * Secrets are never shown back (GET shows `*****`, a change that sends `*****` keeps the stored
 * value) and never enter an event (events carry everything but the parameters).
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { notFound, quote, validationFailed, type ErrorDetail } from '../../http/errors.ts'
import { auditContext, type Actor } from '../events/audit.ts'
import { appendEvents, eventJson } from '../events/event-store.ts'
import { positionNow } from '../events/event-log.ts'
import type { AddonData } from '../events/event-types.ts'
import type { AddonBody } from './addon-schemas.ts'
import { createAddonStore, type AddonFields, type ParameterValue, type StoredAddon } from './addon-store.ts'
import { MASK, masked, PROVIDERS, providerNamed } from './providers.ts'
import { urlProblem, type Resolve } from './url-safety.ts'
import { send, type SendOptions } from './senders.ts'
import { createDeliveryStore } from './delivery-store.ts'

/** An integration as the API shows it: as stored, its secrets masked. */
export type Addon = StoredAddon

const addonNotFound = (id: number) => notFound(`Could not find addon ${id}.`)

const shown = (addon: StoredAddon): Addon => ({ ...addon, parameters: masked(addon.provider, addon.parameters) })

const eventData = ({ parameters: _secrets, ...addon }: StoredAddon): AddonData => addon

/** One event sent again to one integration now, by hand; the attempt is recorded as any other. */
export function createRedelivery({ db, ...sendOptions }: { db: Kysely<Database> } & SendOptions) {
  return async (id: number, eventId: number) => {
    const addon = await createAddonStore(db).find(id)
    if (!addon) throw addonNotFound(id)
    const json = await eventJson(db, eventId)
    if (json === undefined) throw notFound(`Event ${eventId} does not exist.`)
    const result = await send(addon.provider, addon.parameters, json, `pennon-${addon.id}-${eventId}`, sendOptions)
    const deliveries = createDeliveryStore(db)
    await deliveries.recordAll([{ integrationId: id, createdAt: new Date().toISOString(), ...result, event: json }])
    return (await deliveries.attempts(id, 1, 0))[0]!
  }
}

export function createAddonService({
  db,
  allowedHosts,
  resolve,
}: {
  db: Kysely<Database>
  allowedHosts: readonly string[]
  /** How host names resolve (tests may give their own; DNS otherwise). */
  resolve?: Resolve
}) {
  /** The body's fields, every problem at once; `before`'s values where the body sends `*****`. */
  async function validate(input: AddonBody, before?: StoredAddon): Promise<AddonFields> {
    const problems: ErrorDetail[] = []
    const provider = providerNamed(input.provider)
    if (!provider) {
      problems.push({
        path: '/body/provider',
        message: `Unknown provider ${quote(input.provider)}: it must be one of ${PROVIDERS.map((p) => p.name).join(', ')}.`,
      })
      throw validationFailed(problems)
    }
    const parameters: Record<string, ParameterValue> = {}
    for (const [name, value] of Object.entries(input.parameters)) {
      if (value === MASK) {
        const kept = before?.parameters[name]
        if (kept !== undefined) parameters[name] = kept
        else
          problems.push({
            path: `/body/parameters/${name}`,
            message: `The \`${name}\` parameter has no stored value for \`*****\` to keep.`,
          })
      } else if (value === '') {
        problems.push({ path: `/body/parameters/${name}`, message: `The \`${name}\` parameter must not be empty: leave it out instead.` })
      } else parameters[name] = value
    }
    const missing = provider.parameters.filter((p) => p.required && !(p.name in input.parameters)).map((p) => p.name)
    if (missing.length > 0) {
      problems.push({
        path: '/body/parameters',
        message: `The ${provider.name} provider needs ${missing.map((name) => `\`${name}\``).join(', ')}.`,
      })
    }
    for (const parameter of provider.parameters) {
      const value = parameters[parameter.name]
      if (value === undefined || input.parameters[parameter.name] === MASK) continue
      if (parameter.type === 'url') {
        const problem = typeof value === 'string' ? await urlProblem(value, allowedHosts, resolve) : 'must be a URL'
        if (problem)
          problems.push({ path: `/body/parameters/${parameter.name}`, message: `The \`${parameter.name}\` parameter ${problem}.` })
      }
      if (parameter.name === 'signingSecret' && !(typeof value === 'string' && /^whsec_[A-Za-z0-9+/]{32,}={0,2}$/.test(value))) {
        problems.push({
          path: '/body/parameters/signingSecret',
          message: 'The `signingSecret` parameter must be `whsec_` followed by at least 24 random bytes in base64.',
        })
      }
      if (parameter.name === 'customHeaders' && !isHeaderObject(value)) {
        problems.push({
          path: '/body/parameters/customHeaders',
          message: 'The `customHeaders` parameter must be a JSON object of header names and string values HTTP allows, as text.',
        })
      }
      if ((parameter.name === 'authorization' || parameter.name === 'contentType') && !HEADER_VALUE.test(String(value))) {
        problems.push({
          path: `/body/parameters/${parameter.name}`,
          message: `The \`${parameter.name}\` parameter must hold no control characters: it is sent as a header.`,
        })
      }
    }
    if (problems.length > 0) throw validationFailed(problems)
    return {
      provider: provider.name,
      description: input.description ?? before?.description ?? null,
      enabled: input.enabled,
      parameters,
      events: input.events,
      projects: input.projects ?? [],
      environments: input.environments ?? [],
    }
  }

  return {
    list: async () => ({
      addons: (await createAddonStore(db).list()).map(shown),
      providers: PROVIDERS.map((provider) => ({ ...provider, events: [...provider.events] })),
    }),

    get: async (id: number): Promise<Addon> => {
      const addon = await createAddonStore(db).find(id)
      if (!addon) throw addonNotFound(id)
      return shown(addon)
    },

    create: async (input: AddonBody, actor: Actor): Promise<Addon> => {
      const fields = await validate(input)
      return db.transaction().execute(async (trx) => {
        const audit = auditContext(actor)
        const created = await createAddonStore(trx).insert(fields, audit.createdAt, await positionNow(trx))
        await appendEvents(trx, audit, [{ type: 'addon-config-created', data: eventData(created) }])
        return shown(created)
      })
    },

    /** The body replaces the integration (parameters, events and filters), as the reference; a description not sent is kept. */
    update: async (id: number, input: AddonBody, actor: Actor): Promise<Addon> => {
      const current = await createAddonStore(db).find(id)
      if (!current) throw addonNotFound(id)
      const fields = await validate(input, current)
      return db.transaction().execute(async (trx) => {
        const store = createAddonStore(trx)
        const before = await store.find(id, { forUpdate: true })
        if (!before) throw addonNotFound(id)
        const after: StoredAddon = { ...before, ...fields }
        // Enabled again: delivery starts from now, not from where it stopped.
        await store.update(id, fields, !before.enabled && fields.enabled ? await positionNow(trx) : undefined)
        await appendEvents(trx, auditContext(actor), [{ type: 'addon-config-updated', data: eventData(after), preData: eventData(before) }])
        return shown(after)
      })
    },

    delete: (id: number, actor: Actor): Promise<void> =>
      db.transaction().execute(async (trx) => {
        const store = createAddonStore(trx)
        const before = await store.find(id, { forUpdate: true })
        if (!before) throw addonNotFound(id)
        await store.delete(id)
        await appendEvents(trx, auditContext(actor), [{ type: 'addon-config-deleted', preData: eventData(before) }])
      }),
  }
}

// What HTTP allows in a header name (a token) and value (no control characters but tab).
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,200}$/
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/

function isHeaderObject(value: unknown): boolean {
  if (typeof value !== 'string') return false
  try {
    const parsed: unknown = JSON.parse(value)
    return (
      typeof parsed === 'object' &&
      parsed !== null &&
      !Array.isArray(parsed) &&
      Object.entries(parsed).every(([name, v]) => HEADER_NAME.test(name) && typeof v === 'string' && HEADER_VALUE.test(v))
    )
  } catch {
    return false
  }
}

export type AddonService = ReturnType<typeof createAddonService>
