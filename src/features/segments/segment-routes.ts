import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { SegmentService } from './segment-service.ts'

export const segmentRoutes: FastifyPluginAsyncTypebox<{ segments: SegmentService }> = async (_app, _options) => {}
