/**
 * The OpenID Connect settings, in the shape of the reference's `oidcSettingsSchema` (Unleash
 * Enterprise's `unleash.enterprise.auth.oidc` setting), and their checks. The client secret is
 * stored with them (as the reference stores it) but never answered nor written to an event.
 */
import { Type, type Static } from '@sinclair/typebox'
import { issuerUrlProblem } from '../../config.ts'
import { invalid, quote } from '../../http/errors.ts'
import { ROOT_ROLES } from '../../http/permissions.ts'

/** The setting's name in the settings table and in its events, as the reference names it. */
export const OIDC_SETTING = 'unleash.enterprise.auth.oidc'

const RootRoleName = Type.Union([Type.Literal('Admin'), Type.Literal('Editor'), Type.Literal('Viewer')], {
  description: 'The root role of users made by autoCreate (default Viewer)',
})
const SigningAlgorithm = Type.Union([Type.Literal('RS256'), Type.Literal('RS384'), Type.Literal('RS512')], {
  description: 'The algorithm the provider signs ID tokens with; an ID token signed otherwise is refused (default RS256)',
})

const settingsFields = {
  enabled: Type.Boolean({ description: 'Whether people may sign in with OpenID Connect' }),
  discoverUrl: Type.String({
    maxLength: 1000,
    description:
      "The provider's issuer, or its discovery document (`<issuer>/.well-known/openid-configuration`); https, or http on a loopback address",
  }),
  clientId: Type.String({ maxLength: 255, description: "Pennon's client id at the provider" }),
  autoCreate: Type.Boolean({ description: 'Whether a person with no user yet gets one on their first sign-in' }),
  defaultRootRole: RootRoleName,
  defaultRootRoleId: Type.Integer({ minimum: 1, maximum: 3, description: 'The same by id; takes precedence over defaultRootRole' }),
  emailDomains: Type.String({
    maxLength: 1000,
    description: 'Comma-separated email domains autoCreate is limited to (empty: any)',
  }),
  enableSingleSignOut: Type.Boolean({ description: 'Signing out of Pennon also signs out at the provider (its end-session endpoint)' }),
  acrValues: Type.String({
    maxLength: 1000,
    description: 'Space-separated Authentication Context Class References to ask for (acr_values)',
  }),
  idTokenSigningAlgorithm: SigningAlgorithm,
  addGroupsScope: Type.Boolean({ description: "Whether the sign-in asks for the provider's `groups` scope too" }),
  groupJsonPath: Type.String({
    maxLength: 255,
    description:
      "Where the person's groups are in the provider's claims (`groups`, or a dotted path: `realm_access.roles`); empty: groups are not read",
  }),
  rootRoleGroups: Type.Object(
    {
      Admin: Type.Array(Type.String({ maxLength: 255 }), { maxItems: 100 }),
      Editor: Type.Array(Type.String({ maxLength: 255 }), { maxItems: 100 }),
      Viewer: Type.Array(Type.String({ maxLength: 255 }), { maxItems: 100 }),
    },
    {
      additionalProperties: false,
      description:
        "For each root role, the provider's groups that give it: at each sign-in a person in one of them gets the highest such role (a person in none keeps theirs)",
    },
  ),
}

/** POST: the whole setting (what is left out takes its default), the secret kept when not sent. */
export const OidcSettingsBody = Type.Object(
  {
    ...Type.Partial(Type.Object({ ...settingsFields, rootRoleGroups: Type.Partial(settingsFields.rootRoleGroups) })).properties,
    secret: Type.Optional(
      Type.String({ maxLength: 1000, description: 'The client secret; kept as stored when left out. Never answered.' }),
    ),
    enablePkce: Type.Optional(Type.Boolean({ description: "Accepted for the reference's tools, and ignored: PKCE is always used" })),
  },
  { additionalProperties: false },
)
export type OidcSettingsBody = Static<typeof OidcSettingsBody>

export const OidcSettingsResponse = Type.Object(
  {
    ...Type.Omit(Type.Object(settingsFields), ['defaultRootRoleId']).properties,
    defaultRootRoleId: settingsFields.defaultRootRoleId,
  },
  { additionalProperties: false, description: 'The settings in force, without the secret' },
)
export type OidcSettingsResponse = Static<typeof OidcSettingsResponse>

/** What GET answers: the settings in force, and whether the environment sets them (so a console shows them read-only before anyone edits). */
export const OidcSettingsShown = Type.Object(
  {
    ...OidcSettingsResponse.properties,
    setByEnvironment: Type.Boolean({
      description: 'True while OIDC_DISCOVER_URL and the other OIDC_* variables set these settings: POST answers 409 then',
    }),
  },
  { additionalProperties: false, description: 'The settings in force, without the secret, and where they come from' },
)
export type OidcSettingsShown = Static<typeof OidcSettingsShown>

/** The settings as stored and used. */
export interface OidcSettings extends OidcSettingsResponse {
  secret: string
}

const ROLE_NAMES = { [ROOT_ROLES.Admin]: 'Admin', [ROOT_ROLES.Editor]: 'Editor', [ROOT_ROLES.Viewer]: 'Viewer' } as const
const ROLE_IDS = { Admin: ROOT_ROLES.Admin, Editor: ROOT_ROLES.Editor, Viewer: ROOT_ROLES.Viewer } as const

export const DEFAULT_OIDC_SETTINGS: OidcSettings = Object.freeze({
  enabled: false,
  discoverUrl: '',
  clientId: '',
  secret: '',
  autoCreate: false,
  defaultRootRole: 'Viewer',
  defaultRootRoleId: ROOT_ROLES.Viewer,
  emailDomains: '',
  enableSingleSignOut: false,
  acrValues: '',
  idTokenSigningAlgorithm: 'RS256',
  addGroupsScope: false,
  groupJsonPath: '',
  rootRoleGroups: { Admin: [], Editor: [], Viewer: [] },
})

/** What is answered and written to events: everything but the secret. */
export function withoutSecret({ secret: _secret, ...shown }: OidcSettings): OidcSettingsResponse {
  return shown
}

/** A stored value as settings (a hand edit gone wrong: the defaults, so sign-in is off rather than a 500). */
export function storedOidcSettings(value: unknown): OidcSettings | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const stored = value as Partial<OidcSettings>
  const settings: OidcSettings = { ...DEFAULT_OIDC_SETTINGS }
  for (const key of Object.keys(DEFAULT_OIDC_SETTINGS) as (keyof OidcSettings)[]) {
    if (key !== 'rootRoleGroups' && typeof stored[key] === typeof DEFAULT_OIDC_SETTINGS[key])
      Object.assign(settings, { [key]: stored[key] })
  }
  const groups = stored.rootRoleGroups as Partial<Record<string, unknown>> | undefined
  const listOf = (value: unknown): string[] =>
    Array.isArray(value) ? value.filter((group): group is string => typeof group === 'string') : []
  settings.rootRoleGroups = { Admin: listOf(groups?.Admin), Editor: listOf(groups?.Editor), Viewer: listOf(groups?.Viewer) }
  return settings
}

/**
 * The settings a POST stores, checked: what is left out takes its default but the secret, kept as
 * stored; enabled settings need an issuer Pennon may reach, a client id and a secret.
 */
export function checkedOidcSettings(body: OidcSettingsBody, stored: OidcSettings | undefined): OidcSettings {
  const roleId = body.defaultRootRoleId ?? (body.defaultRootRole ? ROLE_IDS[body.defaultRootRole] : ROOT_ROLES.Viewer)
  const { enablePkce: _alwaysOn, ...fields } = body
  const settings: OidcSettings = {
    ...DEFAULT_OIDC_SETTINGS,
    ...fields,
    discoverUrl: body.discoverUrl?.trim() ?? '',
    clientId: body.clientId?.trim() ?? '',
    secret: body.secret ?? stored?.secret ?? '',
    emailDomains: body.emailDomains?.trim() ?? '',
    acrValues: body.acrValues?.trim() ?? '',
    groupJsonPath: body.groupJsonPath?.trim() ?? '',
    rootRoleGroups: { Admin: [], Editor: [], Viewer: [], ...body.rootRoleGroups },
    defaultRootRoleId: roleId,
    defaultRootRole: ROLE_NAMES[roleId as keyof typeof ROLE_NAMES],
  }
  if (settings.discoverUrl !== '') {
    const problem = issuerUrlProblem(settings.discoverUrl)
    if (problem) throw invalid(`The \`discoverUrl\` property ${problem}. You sent ${quote(settings.discoverUrl)}.`, '/body/discoverUrl')
  }
  if (settings.enabled) {
    for (const key of ['discoverUrl', 'clientId', 'secret'] as const) {
      if (settings[key] === '') throw invalid(`OpenID Connect cannot be enabled without \`${key}\`.`, `/body/${key}`)
    }
  }
  return settings
}

/**
 * The root role a person's groups give (the highest), or undefined when groups are not read or
 * none of theirs is mapped. `claims`: what the provider said of them (ID token and UserInfo).
 */
export function rootRoleOfGroups(claims: Record<string, unknown>, settings: OidcSettings): number | undefined {
  if (settings.groupJsonPath === '') return undefined
  let value: unknown = claims
  for (const key of settings.groupJsonPath.split('.')) {
    value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined
  }
  const groups = new Set(
    Array.isArray(value) ? value.filter((group) => typeof group === 'string') : typeof value === 'string' ? [value] : [],
  )
  for (const role of ['Admin', 'Editor', 'Viewer'] as const) {
    if (settings.rootRoleGroups[role].some((group) => groups.has(group))) return ROLE_IDS[role]
  }
  return undefined
}

/** Whether `email` may have a user made for it: any, or one of the comma-separated domains. */
export function inEmailDomains(email: string, emailDomains: string): boolean {
  const domains = emailDomains
    .split(',')
    .map((domain) => domain.trim().toLowerCase().replace(/^@/, ''))
    .filter((domain) => domain !== '')
  return domains.length === 0 || domains.includes(email.slice(email.lastIndexOf('@') + 1).toLowerCase())
}
