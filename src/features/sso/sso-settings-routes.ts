/** `/api/admin/auth/oidc/settings` and `/api/admin/auth/simple/settings`, as the reference's (Admin only). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errorResponses } from '../../http/common-schemas.ts'
import { checkOidcConnection, OidcConnectionBody, OidcConnectionResult, settingsToTry } from './oidc-connection-check.ts'
import { OidcSettingsBody, OidcSettingsResponse, OidcSettingsShown } from './oidc-settings.ts'
import type { SsoSettingsService } from './sso-settings-service.ts'

const tags = ['Auth']

const PasswordSettings = Type.Object(
  {
    disabled: Type.Boolean({ description: 'Whether password sign-in is turned off (it is refused only while OpenID Connect is enabled)' }),
  },
  { additionalProperties: false },
)

export const ssoSettingsRoutes: FastifyPluginAsyncTypebox<{ settings: SsoSettingsService }> = async (app, { settings }) => {
  app.get(
    '/auth/oidc/settings',
    {
      config: { permission: 'ADMIN' },
      schema: {
        tags,
        summary: 'The OpenID Connect settings in force (never the secret), and whether the environment sets them',
        response: { 200: OidcSettingsShown, ...errorResponses(401, 403) },
      },
    },
    async () => settings.shownOidc(),
  )

  app.post(
    '/auth/oidc/settings',
    {
      config: { permission: 'ADMIN' },
      schema: {
        tags,
        summary: 'Set OpenID Connect sign-in; answers the settings stored (never the secret)',
        description:
          'The whole setting: what is left out takes its default, but the secret, which is kept when not sent. Enabled settings need discoverUrl (https, or http on a loopback address), clientId and secret (400). ' +
          '409 while OIDC_DISCOVER_URL sets them. Events: setting-created the first time, setting-updated after (none when nothing changes), without the secret.',
        body: OidcSettingsBody,
        response: { 200: OidcSettingsResponse, ...errorResponses(400, 401, 403, 409, 413, 415) },
      },
    },
    async (request) => settings.setOidc(request.body, request.principal),
  )

  app.post(
    '/auth/oidc/test',
    {
      config: { permission: 'ADMIN' },
      schema: {
        tags,
        summary: 'Test the connection to an OpenID provider: discovery reached, client accepted (stores nothing)',
        description:
          'Fetches the discovery document (https, or http on a loopback address; the issuer it names must be the one asked for), ' +
          'then asks the token endpoint to redeem a code that does not exist with the client id and secret: `invalid_grant` means the client was accepted, `invalid_client` that the id or secret is wrong. ' +
          'A field left out (an empty secret too) is the stored one. A failed check is a 200 saying so; each request to the provider gets 5 seconds. The secret is never answered.',
        body: OidcConnectionBody,
        response: { 200: OidcConnectionResult, ...errorResponses(400, 401, 403, 413, 415) },
      },
    },
    async (request) => checkOidcConnection(settingsToTry(request.body, await settings.oidc())),
  )

  app.get(
    '/auth/simple/settings',
    {
      config: { permission: 'ADMIN' },
      schema: { tags, summary: 'Whether password sign-in is turned off', response: { 200: PasswordSettings, ...errorResponses(401, 403) } },
    },
    async () => settings.passwordSettings(),
  )

  app.post(
    '/auth/simple/settings',
    {
      config: { permission: 'ADMIN' },
      schema: {
        tags,
        summary: 'Turn password sign-in off or on',
        description:
          'Off only while OpenID Connect sign-in is enabled (409 otherwise); turning OpenID Connect off brings password sign-in back. ' +
          'API tokens (the admin token) work whatever this says. Events: setting-created the first time, setting-updated after.',
        body: PasswordSettings,
        response: { 200: PasswordSettings, ...errorResponses(400, 401, 403, 409, 413, 415) },
      },
    },
    async (request) => settings.setPasswordSettings(request.body.disabled, request.principal),
  )
}
