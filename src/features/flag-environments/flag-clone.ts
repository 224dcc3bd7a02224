/**
 * POST /projects/:projectId/features/:featureName/clone (cloneFeature), as the reference's
 * cloneFeatureToggle: a new flag of the same project with the source's type, description and
 * impression data; in each environment its variants and its strategies (constraints, segments,
 * variants, titles; `groupId` renamed unless `replaceGroupId` is false); its parent dependency. Every
 * environment of the copy starts off. All in one transaction through the flag, strategy and
 * dependency services, so their rules and events hold: `feature-created`, one `feature-strategy-add`
 * per strategy, `feature-dependency-added`. The variants are copied without an event, as the reference.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type, type Static } from '@sinclair/typebox'
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { field } from '../../http/body-rules.ts'
import { errorResponses, urlFriendlyNameProblems } from '../../http/common-schemas.ts'
import { auditContext, type Actor } from '../events/audit.ts'
import { flagNotFound } from '../flags/flag-errors.ts'
import { type CreateFlagBody, FlagResponse } from '../flags/flag-schemas.ts'
import type { FlagService } from '../flags/flag-service.ts'
import { createDependencyStore } from '../flags/dependency-store.ts'
import { createFlagStore, type Flag } from '../flags/flag-store.ts'
import { createFlagEnvironmentStore } from './flag-environment-store.ts'
import { FeatureParams } from './flag-environment-schemas.ts'
import type { StrategyService } from './strategy-service.ts'
import { createStrategyStore } from './strategy-store.ts'

export const CloneFlagBody = Type.Object({
  name: Type.String({ maxLength: 1000, description: 'The new flag: URL-friendly, 1–100 characters, unique across all projects' }),
  replaceGroupId: Type.Optional(Type.Boolean({ description: "Strategies' groupId parameter becomes the new name (default true)" })),
})
export type CloneFlagBody = Static<typeof CloneFlagBody>

export function createFlagCloning({ db, flags, strategies }: { db: Kysely<Database>; flags: FlagService; strategies: StrategyService }) {
  return (project: string, source: string, input: CloneFlagBody, actor: Actor): Promise<Flag> =>
    db.transaction().execute(async (trx) => {
      const original = await createFlagStore(trx).find(source)
      if (!original || original.project !== project) throw flagNotFound(source, project, original)
      const audit = auditContext(actor)
      const copy = await flags.createIn(
        trx,
        project,
        {
          name: input.name,
          description: original.description,
          type: original.type as CreateFlagBody['type'],
          impressionData: original.impressionData,
        },
        audit,
      )
      const environmentStore = createFlagEnvironmentStore(trx)
      const strategyStore = createStrategyStore(trx)
      for (const environment of await environmentStore.list(source)) {
        if (environment.variants.length > 0) await environmentStore.setVariants(copy.name, environment.name, environment.variants)
        for (const { id: _id, sortOrder, ...strategy } of await strategyStore.list(source, environment.name)) {
          const parameters =
            input.replaceGroupId !== false && Object.hasOwn(strategy.parameters, 'groupId')
              ? { ...strategy.parameters, groupId: copy.name }
              : strategy.parameters
          await strategies.createIn(
            trx,
            { project, feature: copy.name, environment: environment.name },
            { ...strategy, sortOrder, parameters },
            audit,
          )
        }
      }
      const parent = await createDependencyStore(trx).parentOf(source)
      if (parent) {
        const { variants } = parent
        await flags.addIn(
          trx,
          { project, child: copy.name, feature: parent.parent, enabled: parent.enabled, ...(variants.length > 0 ? { variants } : {}) },
          audit,
        )
      }
      return copy
    })
}

export const flagCloneRoutes: FastifyPluginAsyncTypebox<{ cloneFlag: ReturnType<typeof createFlagCloning> }> = async (
  app,
  { cloneFlag },
) => {
  app.post(
    '/projects/:projectId/features/:featureName/clone',
    {
      config: { permission: 'CREATE_FEATURE', bodyRules: field('name', urlFriendlyNameProblems) },
      schema: {
        tags: ['Flags'],
        summary: 'Copy a flag under a new name, with its strategies, variants and dependency (every environment off)',
        description: 'The reference answers 201 (its OpenAPI document says 200).',
        params: FeatureParams,
        body: CloneFlagBody,
        response: { 201: FlagResponse, ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      reply.status(201)
      return cloneFlag(request.params.projectId, request.params.featureName, request.body, request.principal)
    },
  )
}
