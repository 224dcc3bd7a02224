import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses, NoContent, sendEmpty } from '../../http/common-schemas.ts'
import {
  CreateStrategyDefinitionBody,
  DefinitionParams,
  DeprecationParams,
  StrategyDefinitionListResponse,
  StrategyDefinitionResponse,
  UpdateStrategyDefinitionBody,
} from './strategy-definition-schemas.ts'
import { createDefinitionRules, updateDefinitionRules, type StrategyDefinitionService } from './strategy-definition-service.ts'

const tags = ['Strategies']

export const strategyDefinitionRoutes: FastifyPluginAsyncTypebox<{ definitions: StrategyDefinitionService }> = async (
  app,
  { definitions },
) => {
  app.get(
    '/strategies',
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: 'The strategies flags can use, with their parameters',
        description: 'The built-in ones first, in their order, then custom ones by name; deprecated ones too.',
        response: { 200: StrategyDefinitionListResponse, ...errorResponses(401, 403) },
      },
    },
    async () => ({ version: 1 as const, strategies: await definitions.list() }),
  )

  app.get(
    '/strategies/:name',
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: 'Get one strategy definition',
        params: DefinitionParams,
        response: { 200: StrategyDefinitionResponse, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => definitions.get(request.params.name),
  )

  app.post(
    '/strategies',
    {
      config: { permission: 'CREATE_STRATEGY', bodyRules: createDefinitionRules },
      schema: {
        tags,
        summary: 'Define a custom strategy',
        description:
          'Answers 201 with the definition and `Location: strategies/<name>`. Flags may then use the name; SDKs need an implementation of it.',
        body: CreateStrategyDefinitionBody,
        response: { 201: StrategyDefinitionResponse, ...errorResponses(400, 401, 403, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      const created = await definitions.create(request.body, request.principal)
      return reply.status(201).header('location', `strategies/${created.name}`).send(created)
    },
  )

  app.put(
    '/strategies/:name',
    {
      config: { permission: 'UPDATE_STRATEGY', bodyRules: updateDefinitionRules },
      schema: {
        tags,
        summary: 'Change a custom strategy',
        description:
          'Its parameters are replaced; title and description are kept when not sent. A built-in strategy cannot be changed (409).',
        params: DefinitionParams,
        body: UpdateStrategyDefinitionBody,
        response: { 200: NoContent, ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      await definitions.update(request.params.name, request.body, request.principal)
      return sendEmpty(reply, 200)
    },
  )

  app.delete(
    '/strategies/:name',
    {
      config: { permission: 'DELETE_STRATEGY' },
      schema: {
        tags,
        summary: 'Delete a custom strategy',
        description: 'Refused (409) for a built-in strategy, and while a flag strategy uses it (the answer names the flags).',
        params: DefinitionParams,
        response: { 200: NoContent, ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await definitions.delete(request.params.name, request.principal)
      return sendEmpty(reply, 200)
    },
  )

  for (const [action, deprecated] of [
    ['deprecate', true],
    ['reactivate', false],
  ] as const) {
    app.post(
      `/strategies/:strategyName/${action}`,
      {
        config: { permission: 'UPDATE_STRATEGY' },
        schema: {
          tags,
          summary: deprecated ? 'Deprecate a strategy' : 'Reactivate a deprecated strategy',
          description:
            'Built-in or custom. Flags keep using it, and may still take it up, as the reference. Nothing changes (no event) when it is in that state already.',
          params: DeprecationParams,
          response: { 200: NoContent, ...errorResponses(401, 403, 404) },
        },
      },
      async (request, reply) => {
        await definitions.setDeprecated(request.params.strategyName, deprecated, request.principal)
        return sendEmpty(reply, 200)
      },
    )
  }
}
