import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses, NoContent, sendEmpty } from '../../http/common-schemas.ts'
import { PatchBody, shapeCheck } from '../../http/json-patch.ts'
import { FeatureEnvironmentParams } from './flag-environment-schemas.ts'
import { placeOf } from './flag-environment.ts'
import {
  CreateStrategyBody,
  SortOrderBody,
  StrategyListResponse,
  StrategyParams,
  StrategyResponse,
  UpdateStrategyBody,
} from './strategy-schemas.ts'
import type { StrategyService } from './strategy-service.ts'

const tags = ['Strategies']

export const strategyRoutes: FastifyPluginAsyncTypebox<{ strategies: StrategyService }> = async (app, { strategies }) => {
  // The strategy names a body may use are read again, if they may have changed, before it is validated.
  const preValidation = async () => strategies.refreshNames()
  const base = '/projects/:projectId/features/:featureName/environments/:environment/strategies'

  app.get(
    base,
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: "A flag's strategies in an environment, in evaluation order",
        params: FeatureEnvironmentParams,
        response: { 200: StrategyListResponse, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => strategies.list(placeOf(request.params)),
  )

  app.post(
    base,
    {
      config: { permission: 'CREATE_FEATURE_STRATEGY', bodyRules: strategies.bodyRules },
      preValidation,
      schema: {
        tags,
        summary: 'Add a strategy',
        description:
          'Answers 200 with the strategy, as the reference does. It does not enable the environment. An unknown segment id is a 400 naming it.',
        params: FeatureEnvironmentParams,
        body: CreateStrategyBody,
        response: { 200: StrategyResponse, ...errorResponses(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request) => strategies.create(placeOf(request.params), request.body, request.principal),
  )

  app.post(
    `${base}/set-sort-order`,
    {
      config: { permission: 'UPDATE_FEATURE_STRATEGY' },
      schema: {
        tags,
        summary: 'Set the order strategies are evaluated in',
        params: FeatureEnvironmentParams,
        body: SortOrderBody,
        response: { 200: NoContent, ...errorResponses(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request, reply) => {
      await strategies.setSortOrder(placeOf(request.params), request.body, request.principal)
      return sendEmpty(reply, 200)
    },
  )

  app.get(
    `${base}/:strategyId`,
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: 'Get one strategy',
        params: StrategyParams,
        response: { 200: StrategyResponse, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => strategies.get(placeOf(request.params), request.params.strategyId),
  )

  app.put(
    `${base}/:strategyId`,
    {
      config: { permission: 'UPDATE_FEATURE_STRATEGY', bodyRules: strategies.bodyRules },
      preValidation,
      schema: {
        tags,
        summary: 'Change a strategy',
        description: 'What is sent replaces what is stored; what is not sent is kept (as the reference does).',
        params: StrategyParams,
        body: UpdateStrategyBody,
        response: { 200: StrategyResponse, ...errorResponses(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request) => strategies.update(placeOf(request.params), request.params.strategyId, request.body, request.principal),
  )

  app.patch(
    `${base}/:strategyId`,
    {
      config: { permission: 'UPDATE_FEATURE_STRATEGY' },
      preValidation,
      schema: {
        tags,
        summary: 'Change a strategy with JSON Patch',
        description:
          'The operations apply to `{name, title, disabled, sortOrder, constraints, variants, parameters, segments}`; the result must be a valid strategy.',
        params: StrategyParams,
        body: PatchBody,
        response: { 200: StrategyResponse, ...errorResponses(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request) =>
      strategies.patch(
        placeOf(request.params),
        request.params.strategyId,
        request.body,
        shapeCheck(request, CreateStrategyBody, strategies.bodyRules),
        request.principal,
      ),
  )

  app.delete(
    `${base}/:strategyId`,
    {
      config: { permission: 'DELETE_FEATURE_STRATEGY' },
      schema: {
        tags,
        summary: 'Remove a strategy',
        description: 'Removing the last strategy of an enabled environment disables the flag there, as the reference does.',
        params: StrategyParams,
        response: { 200: NoContent, ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await strategies.delete(placeOf(request.params), request.params.strategyId, request.principal)
      return sendEmpty(reply, 200)
    },
  )
}
