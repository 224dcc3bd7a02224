import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses, NoContent, parseIntegerId, sendEmpty } from '../../http/common-schemas.ts'
import {
  AddonBody,
  AddonParams,
  AddonResponse,
  AddonsResponse,
  AttemptResponse,
  AttemptsQuery,
  AttemptsResponse,
  RedeliverParams,
} from './addon-schemas.ts'
import type { AddonService, createRedelivery } from './addon-service.ts'
import type { createDeliveryStore } from './delivery-store.ts'

const tags = ['Addons']
const delivery = 'Events are delivered at least once, in order per integration (docs/integrations.md).'

/** The reference's addons API: /api/admin/addons. */
export const addonRoutes: FastifyPluginAsyncTypebox<{
  addons: AddonService
  deliveries: ReturnType<typeof createDeliveryStore>
  redeliver: ReturnType<typeof createRedelivery>
}> = async (app, { addons, deliveries, redeliver }) => {
  app.get(
    '/addons',
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: 'The integrations and the providers',
        description: `Every integration by id, sensitive parameters shown as \`*****\`, and each provider with its parameters and events. ${delivery}`,
        response: { 200: AddonsResponse, ...errorResponses(401, 403) },
      },
    },
    () => addons.list(),
  )

  app.post(
    '/addons',
    {
      config: { permission: 'CREATE_ADDON' },
      schema: {
        tags,
        summary: 'Create an integration',
        description:
          'Answers 201 with it (secrets as `*****`). Every required parameter of the provider must be given; a URL must be http(s) and resolve to public addresses unless its host is in INTEGRATIONS_ALLOWED_HOSTS; `customHeaders` is a JSON object of strings, as text.',
        body: AddonBody,
        response: { 201: AddonResponse, ...errorResponses(400, 401, 403, 413, 415) },
      },
    },
    async (request, reply) => reply.status(201).send(await addons.create(request.body, request.principal)),
  )

  app.get(
    '/addons/:id',
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: 'One integration',
        description: 'Sensitive parameters shown as `*****`.',
        params: AddonParams,
        response: { 200: AddonResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    (request) => addons.get(parseIntegerId(request.params.id, 'id')),
  )

  app.put(
    '/addons/:id',
    {
      config: { permission: 'UPDATE_ADDON' },
      schema: {
        tags,
        summary: 'Change an integration',
        description:
          'The body replaces it, as the reference: parameters not sent are removed, projects and environments not sent become all; a parameter sent as `*****` keeps its stored value; a description not sent is kept.',
        params: AddonParams,
        body: AddonBody,
        response: { 200: AddonResponse, ...errorResponses(400, 401, 403, 404, 413, 415) },
      },
    },
    (request) => addons.update(parseIntegerId(request.params.id, 'id'), request.body, request.principal),
  )

  app.delete(
    '/addons/:id',
    {
      config: { permission: 'DELETE_ADDON' },
      schema: {
        tags,
        summary: 'Delete an integration',
        description: 'Answers 200 with no body, as the reference.',
        params: AddonParams,
        response: { 200: NoContent, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await addons.delete(parseIntegerId(request.params.id, 'id'), request.principal)
      return sendEmpty(reply, 200)
    },
  )

  app.get(
    '/addons/:id/events',
    {
      config: { permission: 'ADMIN' },
      schema: {
        tags,
        summary: "An integration's delivery log",
        description:
          'Each attempt to deliver an event, newest first: `state` `success`, `failed` or `successWithErrors`, what happened, the event and what was sent. `limit` 1–100 (50 otherwise, as the reference), `offset` from 0. An unknown integration has none.',
        params: AddonParams,
        querystring: AttemptsQuery,
        response: { 200: AttemptsResponse, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const limit = Number(request.query.limit)
      const offset = Number(request.query.offset)
      return {
        integrationEvents: await deliveries.attempts(
          parseIntegerId(request.params.id, 'id'),
          Number.isInteger(limit) && limit > 0 && limit <= 100 ? limit : 50,
          Number.isInteger(offset) && offset > 0 ? offset : 0,
        ),
      }
    },
  )

  app.post(
    '/addons/:id/events/:eventId/redeliver',
    {
      config: { permission: 'ADMIN' },
      schema: {
        tags,
        summary: 'Send an event to an integration again',
        description:
          'Now, whatever its delivery did (a delivery given up, a receiver that lost it), with the same `webhook-id`; the try is recorded in the delivery log, and answered. It does not move where delivery stands. 404 for an unknown integration or event.',
        params: RedeliverParams,
        response: { 200: AttemptResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    (request) => redeliver(parseIntegerId(request.params.id, 'id'), parseIntegerId(request.params.eventId, 'eventId')),
  )
}
