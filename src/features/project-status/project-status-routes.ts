import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses } from '../../http/common-schemas.ts'
import { ProjectParams } from '../projects/project-schemas.ts'
import { ProjectStatusResponse } from './project-status-schemas.ts'
import type { ProjectStatusService } from './project-status-service.ts'

export const projectStatusRoutes: FastifyPluginAsyncTypebox<{ projectStatus: ProjectStatusService }> = async (app, { projectStatus }) => {
  app.get(
    '/projects/:projectId/status',
    {
      config: { permission: 'NONE' },
      schema: {
        tags: ['Projects'],
        summary: "A project's status: activity, resources, health, lifecycle summary and stale flags",
        params: ProjectParams,
        response: { 200: ProjectStatusResponse, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => projectStatus.status(request.params.projectId),
  )
}
