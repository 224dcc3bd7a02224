import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FlagService } from './flag-service.ts'

export const flagRoutes: FastifyPluginAsyncTypebox<{ flags: FlagService }> = async (_app, _options) => {}
