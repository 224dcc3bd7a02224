/**
 * The single sign-on settings (table `settings`, through its store in maintenance/): OpenID
 * Connect's, set by the admin API or, when OIDC_DISCOVER_URL is set, by the environment alone;
 * and whether password sign-in is turned off (the reference's `unleash.auth.simple`
 * `{disabled}`). Password sign-in is refused only while OpenID Connect is enabled too: turning
 * OpenID Connect off brings passwords back, so no setting locks every admin out (the admin token
 * and `npm run admin-user` work whatever these say).
 */
import type { Kysely } from 'kysely'
import type { OidcEnvConfig } from '../../config.ts'
import type { Database } from '../../db/tables.ts'
import { invalidOperation } from '../../http/errors.ts'
import { ROOT_ROLES } from '../../http/permissions.ts'
import { auditContext, type Actor } from '../events/audit.ts'
import { appendEvents } from '../events/event-store.ts'
import { createSettingsStore } from '../maintenance/settings-store.ts'
import {
  checkedOidcSettings,
  DEFAULT_OIDC_SETTINGS,
  OIDC_SETTING,
  storedOidcSettings,
  withoutSecret,
  type OidcSettings,
  type OidcSettingsBody,
  type OidcSettingsResponse,
  type OidcSettingsShown,
} from './oidc-settings.ts'

/** The password sign-in setting's name, as the reference names it. */
export const PASSWORD_SETTING = 'unleash.auth.simple'

const passwordDisabled = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && (value as { disabled?: unknown }).disabled === true

/** One setting stored with its event, as the reference: `setting-created` the first time, else `setting-updated`. */
async function putSetting(
  trx: Kysely<Database>,
  name: string,
  value: object,
  shown: object,
  shownBefore: object | undefined,
  actor: Actor,
) {
  const { created } = await createSettingsStore(trx).put(name, value)
  const data = { id: name, ...shown }
  await appendEvents(
    trx,
    auditContext(actor),
    created ? [{ type: 'setting-created', data }] : [{ type: 'setting-updated', data, preData: shownBefore ?? {} }],
  )
}

export function createSsoSettingsService({ db, fromEnvironment }: { db: Kysely<Database>; fromEnvironment: OidcEnvConfig | undefined }) {
  const environment: OidcSettings | undefined = fromEnvironment && {
    ...fromEnvironment,
    rootRoleGroups: { ...fromEnvironment.rootRoleGroups },
    defaultRootRoleId: ROOT_ROLES[fromEnvironment.defaultRootRole],
  }
  const oidc = async (database: Kysely<Database> = db): Promise<OidcSettings> =>
    environment ?? storedOidcSettings(await createSettingsStore(database).read(OIDC_SETTING)) ?? DEFAULT_OIDC_SETTINGS

  return {
    /** The OpenID Connect settings in force, the secret with them (for sign-in only). */
    oidc,

    shownOidc: async (): Promise<OidcSettingsShown> => ({ ...withoutSecret(await oidc()), setByEnvironment: environment !== undefined }),

    /** Stores the settings (the secret kept when not sent), with an event that leaves the secret out; none when nothing changes. */
    setOidc: (body: OidcSettingsBody, actor: Actor): Promise<OidcSettingsResponse> => {
      if (environment) throw invalidOperation('OpenID Connect is set by the environment (OIDC_DISCOVER_URL and the rest): change it there.')
      return db.transaction().execute(async (trx) => {
        const stored = storedOidcSettings(await createSettingsStore(trx).read(OIDC_SETTING))
        const settings = checkedOidcSettings(body, stored)
        if (JSON.stringify(settings) !== JSON.stringify(stored)) {
          await putSetting(trx, OIDC_SETTING, settings, withoutSecret(settings), stored && withoutSecret(stored), actor)
        }
        return withoutSecret(settings)
      })
    },

    /** Whether password sign-in is turned off, as stored (it is refused only while OpenID Connect is enabled too). */
    passwordSettings: async (): Promise<{ disabled: boolean }> => ({
      disabled: passwordDisabled(await createSettingsStore(db).read(PASSWORD_SETTING)),
    }),

    /** Which ways in are open now (the sign-in page asks, through /auth/options). */
    async ways(): Promise<{ password: boolean; oidc: boolean }> {
      const [disabled, { enabled }] = await Promise.all([createSettingsStore(db).read(PASSWORD_SETTING), oidc()])
      return { password: !(passwordDisabled(disabled) && enabled), oidc: enabled }
    },

    /** Whether /auth/simple/login may sign people in now. */
    passwordSignInAllowed: async (): Promise<boolean> =>
      !(passwordDisabled(await createSettingsStore(db).read(PASSWORD_SETTING)) && (await oidc()).enabled),

    /** Turns password sign-in off or on; off only while OpenID Connect is enabled (409 otherwise). */
    setPasswordSettings: (disabled: boolean, actor: Actor): Promise<{ disabled: boolean }> =>
      db.transaction().execute(async (trx) => {
        if (disabled && !(await oidc(trx)).enabled)
          throw invalidOperation(
            'Password sign-in can only be turned off while OpenID Connect sign-in is enabled: enable it (and try it) first.',
          )
        const before = await createSettingsStore(trx).read(PASSWORD_SETTING)
        if (before !== undefined && passwordDisabled(before) === disabled) return { disabled }
        const value = { disabled }
        await putSetting(
          trx,
          PASSWORD_SETTING,
          value,
          value,
          before === undefined ? undefined : { disabled: passwordDisabled(before) },
          actor,
        )
        return { disabled }
      }),
  }
}

export type SsoSettingsService = ReturnType<typeof createSsoSettingsService>
