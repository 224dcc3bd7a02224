import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { EventService } from './event-service.ts'

export const eventRoutes: FastifyPluginAsyncTypebox<{ events: EventService }> = async (_app, _options) => {}
