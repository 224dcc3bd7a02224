/**
 * GET /ui-config: what the reference's UI reads first (uiConfigSchema), filled with what is true
 * of Pennon; POST /ui-config/cors: the frontend API's allowed origins (frontend-origins.ts).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { Kysely } from 'kysely'
import type { Config } from '../../config.ts'
import type { Database } from '../../db/tables.ts'
import { errorResponses, NoContent, sendEmpty } from '../../http/common-schemas.ts'
import { notFound } from '../../http/errors.ts'
import { createInstanceStatsStore } from '../instance-admin/instance-stats-store.ts'
import { pennonVersion } from '../instance-admin/version.ts'
import type { MaintenanceService } from '../maintenance/maintenance-service.ts'
import type { FrontendOrigins } from './frontend-origins.ts'

const tags = ['Admin UI']

export const UiConfigResponse = Type.Object(
  {
    name: Type.String(),
    version: Type.String({ description: "Pennon's version" }),
    unleashUrl: Type.String({ description: 'PUBLIC_URL, or else the origin the request reached' }),
    baseUriPath: Type.String({ description: 'Always empty: Pennon serves at the root of its host' }),
    authenticationType: Type.Union([Type.Literal('open-source'), Type.Literal('none')], { description: 'AUTH_TYPE' }),
    disablePasswordAuth: Type.Boolean({
      description: 'true with AUTH_TYPE=none (no sign-in), and while password sign-in is turned off (single sign-on only)',
    }),
    emailEnabled: Type.Boolean({ description: 'Always false: Pennon sends no email (invite and reset links are handed to the admin)' }),
    maintenanceMode: Type.Boolean(),
    prometheusAPIAvailable: Type.Boolean(),
    frontendApiOrigins: Type.Array(Type.String(), {
      description: 'The origins in force for the frontend API: the stored ones, else FRONTEND_API_ORIGINS',
    }),
    flags: Type.Record(Type.String(), Type.Boolean(), { description: 'Always empty: Pennon has no experimental flags' }),
    versionInfo: Type.Object({
      current: Type.Object({ oss: Type.String(), enterprise: Type.String() }),
      latest: Type.Object({}, { description: 'Always empty: Pennon does not look for releases' }),
      isLatest: Type.Boolean(),
      instanceId: Type.String(),
    }),
  },
  { additionalProperties: false },
)

export const SetCorsBody = Type.Object(
  {
    frontendApiOrigins: Type.Optional(
      Type.Array(Type.String({ maxLength: 1000 }), {
        maxItems: 1000,
        description: '`*` (any origin) or origins such as https://shop.example.com; empty: any origin',
      }),
    ),
  },
  { additionalProperties: false },
)

export const uiConfigRoutes: FastifyPluginAsyncTypebox<{
  db: Kysely<Database>
  config: Config
  maintenance: MaintenanceService
  frontendOrigins: FrontendOrigins
  /** Whether password sign-in is allowed now (sso/). */
  passwordSignIn: () => Promise<boolean>
}> = async (app, { db, config, maintenance, frontendOrigins, passwordSignIn }) => {
  app.get(
    '/ui-config',
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: 'What the admin UI needs to know first',
        description:
          "Pennon's version and instance, the authentication type, whether maintenance mode is on, the frontend API's origins. Any admin-API credential (NONE).",
        response: { 200: UiConfigResponse, ...errorResponses(401, 403) },
      },
    },
    async (request) => {
      const [maintenanceMode, origins, instanceId, passwords] = await Promise.all([
        maintenance.isOn(),
        frontendOrigins.current(),
        createInstanceStatsStore(db).instanceId(),
        passwordSignIn(),
      ])
      const version = pennonVersion()
      return {
        name: 'Pennon',
        version,
        unleashUrl: config.publicUrl ?? `${request.protocol}://${request.host}`,
        baseUriPath: '',
        authenticationType: config.authType,
        disablePasswordAuth: config.authType === 'none' || !passwords,
        emailEnabled: false,
        maintenanceMode,
        prometheusAPIAvailable: false,
        frontendApiOrigins: [...origins],
        flags: {},
        versionInfo: { current: { oss: version, enterprise: '' }, latest: {}, isLatest: true, instanceId },
      }
    },
  )

  app.post(
    '/ui-config/cors',
    {
      config: { permission: 'ADMIN' },
      schema: {
        tags,
        summary: 'Set the origins whose pages may call the frontend API',
        description:
          'Takes effect on every instance within milliseconds, for /api/frontend and /ofrep: a listed Origin is echoed in Access-Control-Allow-Origin, another gets none; `*` or an empty list: any origin. Overrides FRONTEND_API_ORIGINS. Without `frontendApiOrigins`, a 404 (as the reference). 400 for an entry that is neither `*` nor an origin. Events: setting-created the first time, setting-updated after (none when nothing changes).',
        body: SetCorsBody,
        response: { 204: NoContent, ...errorResponses(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request, reply) => {
      if (request.body.frontendApiOrigins === undefined) throw notFound('Give the origins as frontendApiOrigins.')
      await frontendOrigins.set(request.body.frontendApiOrigins, request.principal)
      return sendEmpty(reply, 204)
    },
  )
}
