import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { field } from '../../http/body-rules.ts'
import { errorResponses, NoContent, sendEmpty } from '../../http/common-schemas.ts'
import { PatchBody, shapeCheck } from '../../http/json-patch.ts'
import { BatchFeaturesBody, PossibleParentsResponse } from '../flags/flag-schemas.ts'
import { checkVariants } from './variant-rules.ts'
import { VariantsBody } from './variant-schemas.ts'
import {
  BulkParams,
  FeatureEnvironmentDetails,
  FeatureEnvironmentParams,
  FeatureParams,
  ParentParams,
  PushVariantsBody,
  VariantsResponse,
} from './flag-environment-schemas.ts'
import type { FlagEnvironmentService } from './flag-environment-service.ts'
import { placeOf } from './flag-environment.ts'

const tags = ['Flag environments']
export const flagEnvironmentRoutes: FastifyPluginAsyncTypebox<{ flagEnvironments: FlagEnvironmentService }> = async (
  app,
  { flagEnvironments },
) => {
  const base = '/projects/:projectId/features/:featureName/environments/:environment'

  app.get(
    base,
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: "A flag's state, strategies and variants in one environment",
        params: FeatureEnvironmentParams,
        response: { 200: FeatureEnvironmentDetails, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => flagEnvironments.get(placeOf(request.params)),
  )

  for (const [state, enabled] of [
    ['on', true],
    ['off', false],
  ] as const) {
    app.post(
      `${base}/${state}`,
      {
        config: { permission: 'UPDATE_FEATURE_ENVIRONMENT' },
        schema: {
          tags,
          summary: `Switch a flag ${state} in an environment`,
          description:
            state === 'on'
              ? "Answers 200 with no body. An environment without an active strategy gets the default one first: the project's there, if set (a 409 when what it names has gone since), else flexibleRollout, 100%. An archived flag is a 400."
              : 'Answers 200 with no body. The strategies stay.',
          params: FeatureEnvironmentParams,
          response: { 200: NoContent, ...errorResponses(400, 401, 403, 404, ...(state === 'on' ? [409] : [])) },
        },
      },
      async (request, reply) => {
        await flagEnvironments.toggle(placeOf(request.params), enabled, request.principal)
        return sendEmpty(reply, 200)
      },
    )

    app.post(
      `/projects/:projectId/bulk_features/environments/:environment/${state}`,
      {
        config: { permission: 'UPDATE_FEATURE_ENVIRONMENT' },
        schema: {
          tags,
          summary: `Switch several flags ${state} in an environment`,
          description: 'All or none: every named flag must be an active flag of the project.',
          params: BulkParams,
          body: BatchFeaturesBody,
          response: { 200: NoContent, ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
        },
      },
      async (request, reply) => {
        await flagEnvironments.toggleMany(
          request.params.projectId,
          request.params.environment,
          request.body.features,
          enabled,
          request.principal,
        )
        return sendEmpty(reply, 200)
      },
    )
  }

  app.get(
    `${base}/variants`,
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: "A flag's variants in an environment",
        params: FeatureEnvironmentParams,
        response: { 200: VariantsResponse, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => flagEnvironments.getVariants(placeOf(request.params)),
  )

  const variantsDescription =
    'Weights are per mille: "fix" weights are kept, the rest of 1000 is shared by the "variable" variants. Kept working (the reference deprecated these) because SDKs still evaluate them; strategy variants are the preferred way.'

  app.put(
    `${base}/variants`,
    {
      // The list's rules, once every variant is well-formed (body-rules.ts).
      config: {
        permission: 'UPDATE_FEATURE_ENVIRONMENT_VARIANTS',
        bodyRules: (body, clean) => (Array.isArray(body) && clean('') ? checkVariants(body, '/body') : []),
      },
      schema: {
        tags,
        summary: "Replace a flag's variants in an environment",
        description: variantsDescription,
        params: FeatureEnvironmentParams,
        body: VariantsBody,
        response: { 200: VariantsResponse, ...errorResponses(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request) => flagEnvironments.putVariants(placeOf(request.params), request.body, request.principal),
  )

  app.patch(
    `${base}/variants`,
    {
      config: { permission: 'UPDATE_FEATURE_ENVIRONMENT_VARIANTS' },
      schema: {
        tags,
        summary: "Change a flag's variants in an environment with JSON Patch",
        description: `${variantsDescription} The operations apply to the list of variants; the result must be a valid list.`,
        params: FeatureEnvironmentParams,
        body: PatchBody,
        response: { 200: VariantsResponse, ...errorResponses(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request) =>
      flagEnvironments.patchVariants(placeOf(request.params), request.body, shapeCheck(request, VariantsBody), request.principal),
  )

  app.put(
    '/projects/:projectId/features/:featureName/variants-batch',
    {
      config: {
        permission: 'UPDATE_FEATURE_ENVIRONMENT_VARIANTS',
        bodyRules: (body, clean) => field('variants', checkVariants)(body, clean),
      },
      schema: {
        tags,
        summary: "Replace a flag's variants in several environments",
        description: `${variantsDescription} The same list is stored in each environment named, all or none, with an event per environment; the answer is the list as stored.`,
        params: FeatureParams,
        body: PushVariantsBody,
        response: { 200: VariantsResponse, ...errorResponses(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request) =>
      flagEnvironments.putVariantsInEnvironments(
        { project: request.params.projectId, feature: request.params.featureName },
        request.body.environments,
        request.body.variants ?? [],
        request.principal,
      ),
  )

  app.get(
    '/projects/:projectId/features/:parent/parent-variants',
    {
      config: { permission: 'NONE' },
      schema: {
        tags: ['Dependencies'],
        summary: "The variant names a child may require of this parent: its environments' and its strategies' variants",
        description: 'Unique, sorted. A flag that is not in the project is a 404 (the reference answers an empty list).',
        params: ParentParams,
        response: { 200: PossibleParentsResponse, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => flagEnvironments.parentVariants(request.params.projectId, request.params.parent),
  )
}
