import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses, NoContent, parseIntegerId, sendEmpty } from '../../http/common-schemas.ts'
import {
  ApiTokenListResponse,
  CreateApiTokenBody,
  CreatedApiTokenResponse,
  CreateServiceAccountBody,
  CreateServiceAccountTokenBody,
  ServiceAccountListResponse,
  ServiceAccountParams,
  ServiceAccountResponse,
  ServiceAccountTokenResponse,
  TokenNameParams,
  TokenSecretParams,
  UpdateApiTokenBody,
} from './token-schemas.ts'
import { expiresAtRule, type TokenService } from './token-service.ts'

const tags = ['API tokens']

export const tokenRoutes: FastifyPluginAsyncTypebox<{ tokens: TokenService }> = async (app, { tokens }) => {
  app.get(
    '/api-tokens',
    {
      config: { permission: 'ADMIN' },
      schema: {
        tags,
        summary: 'List API tokens (never their secrets)',
        response: { 200: ApiTokenListResponse, ...errorResponses(401, 403) },
      },
    },
    async () => ({ tokens: await tokens.listApiTokens() }),
  )

  app.post(
    '/api-tokens',
    {
      config: { permission: 'ADMIN', bodyRules: expiresAtRule },
      schema: {
        tags,
        summary: 'Create an API token; the response is the only time its secret is shown',
        body: CreateApiTokenBody,
        response: { 201: CreatedApiTokenResponse, ...errorResponses(400, 401, 403, 413, 415) },
      },
    },
    async (request, reply) => reply.status(201).send(await tokens.createApiToken(request.body, request.principal)),
  )

  app.get(
    '/api-tokens/:tokenName',
    {
      config: { permission: 'ADMIN' },
      schema: {
        tags,
        summary: 'The API tokens with that name (never their secrets)',
        description: 'An unknown name answers an empty list.',
        params: TokenNameParams,
        response: { 200: ApiTokenListResponse, ...errorResponses(401, 403) },
      },
    },
    async (request) => ({ tokens: await tokens.apiTokensByName(request.params.tokenName) }),
  )

  app.put(
    '/api-tokens/:token',
    {
      config: { permission: 'ADMIN', bodyRules: expiresAtRule },
      schema: {
        tags,
        summary: 'Set the expiry of an API token, named by its secret',
        description: 'An unknown secret changes nothing (200), as the reference. A past `expiresAt` is a 400.',
        params: TokenSecretParams,
        body: UpdateApiTokenBody,
        response: { 200: NoContent, ...errorResponses(400, 401, 403, 413, 415) },
      },
    },
    async (request, reply) => {
      await tokens.updateApiTokenExpiry(request.params.token, request.body.expiresAt, request.principal)
      return sendEmpty(reply, 200)
    },
  )

  app.delete(
    '/api-tokens/:tokenName',
    {
      config: { permission: 'ADMIN' },
      schema: {
        tags,
        summary: 'Delete every API token with that name',
        description:
          'Refused (409) when they are the last credentials that can administer Pennon: unexpired admin tokens and tokens of Admin service accounts.',
        params: TokenNameParams,
        response: { 200: NoContent, ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await tokens.deleteApiToken(request.params.tokenName, request.principal)
      return sendEmpty(reply, 200)
    },
  )

  app.get(
    '/service-account',
    {
      config: { permission: 'ADMIN' },
      schema: { tags, summary: 'List service accounts', response: { 200: ServiceAccountListResponse, ...errorResponses(401, 403) } },
    },
    async () => ({ serviceAccounts: await tokens.listServiceAccounts() }),
  )

  app.post(
    '/service-account',
    {
      config: { permission: 'ADMIN' },
      schema: {
        tags,
        summary: 'Create a service account with a root role',
        body: CreateServiceAccountBody,
        response: { 201: ServiceAccountResponse, ...errorResponses(400, 401, 403, 409, 413, 415) },
      },
    },
    async (request, reply) => reply.status(201).send(await tokens.createServiceAccount(request.body, request.principal)),
  )

  app.delete(
    '/service-account/:id',
    {
      config: { permission: 'ADMIN' },
      schema: {
        tags,
        summary: 'Delete a service account and its tokens',
        description:
          'Refused (409) when its tokens are the last credentials that can administer Pennon: unexpired admin tokens and tokens of Admin service accounts.',
        params: ServiceAccountParams,
        response: { 200: NoContent, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await tokens.deleteServiceAccount(parseIntegerId(request.params.id, '/params/id'), request.principal)
      return sendEmpty(reply, 200)
    },
  )

  app.post(
    '/service-account/:id/token',
    {
      config: { permission: 'ADMIN', bodyRules: expiresAtRule },
      schema: {
        tags,
        summary: 'Create a token for a service account; the response is the only time its secret is shown',
        params: ServiceAccountParams,
        body: CreateServiceAccountTokenBody,
        response: { 201: ServiceAccountTokenResponse, ...errorResponses(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request, reply) => {
      const id = parseIntegerId(request.params.id, '/params/id')
      return reply.status(201).send(await tokens.createServiceAccountToken(id, request.body, request.principal))
    },
  )
}
