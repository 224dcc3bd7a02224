import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses, NoContent, sendEmpty } from '../../http/common-schemas.ts'
import type { RoutePermission } from '../../http/permissions.ts'
import {
  ContextFieldListResponse,
  ContextFieldParams,
  ContextFieldResponse,
  ContextFieldStrategiesResponse,
  CreateContextFieldBody,
  LegalValue,
  LegalValueParams,
  ListQuery,
  ProjectContextFieldParams,
  ProjectLegalValueParams,
  ProjectParams,
  UpdateContextFieldBody,
  ValidateNameBody,
} from './context-field-schemas.ts'
import { createFieldRules, nameRules, updateFieldRules, type ContextFieldService } from './context-field-service.ts'

/**
 * The same routes twice, as the reference mounts its controller: under /context for every
 * field, and under /projects/:projectId/context for a project's own fields (its writes need the
 * permission, or UPDATE_PROJECT_CONTEXT).
 */
export const contextFieldRoutes: FastifyPluginAsyncTypebox<{ contextFields: ContextFieldService }> = async (app, { contextFields }) => {
  for (const mode of ['root', 'project'] as const) {
    const project = mode === 'project'
    const base = project ? '/projects/:projectId/context' : '/context'
    const scopeOf = (params: { projectId?: string }) => (project ? { project: params.projectId! } : {})
    const may = (permission: 'CREATE_CONTEXT_FIELD' | 'UPDATE_CONTEXT_FIELD' | 'DELETE_CONTEXT_FIELD'): RoutePermission =>
      project ? [permission, 'UPDATE_PROJECT_CONTEXT'] : permission
    const tags = ['Context']
    const notFound = project ? [404] : []
    const beta = project ? "A project's own context fields (the reference calls this API beta). An unknown project is a 404. " : ''

    app.get(
      base,
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          summary: project ? "A project's context fields" : 'The context fields',
          description: `${beta}By name, each with how many active flags and projects constrain on it through their strategies. ${
            project ? '`include=root`: the fields of every project too.' : "Projects' own fields only with `include=project`."
          }`,
          ...(project ? { params: ProjectParams } : {}),
          querystring: ListQuery,
          response: { 200: ContextFieldListResponse, ...errorResponses(401, 403, ...notFound) },
        },
      },
      async (request) => contextFields.list(scopeOf(request.params as { projectId?: string }), request.query.include),
    )

    app.get(
      `${base}/:contextField`,
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          summary: 'Get one context field',
          description: `${beta}Any field, whichever project it belongs to (as the reference).`,
          params: project ? ProjectContextFieldParams : ContextFieldParams,
          response: { 200: ContextFieldResponse, ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => contextFields.get(request.params.contextField, scopeOf(request.params as { projectId?: string })),
    )

    app.get(
      `${base}/:contextField/strategies`,
      {
        config: { permission: 'NONE' },
        schema: {
          tags: ['Strategies'],
          summary: 'The strategies that constrain on a context field',
          description: `${beta}Strategies of active flags whose own constraints name the field (a segment's constraints do not count, as the reference), by flag, environment and order. An unknown field has none.`,
          params: project ? ProjectContextFieldParams : ContextFieldParams,
          response: { 200: ContextFieldStrategiesResponse, ...errorResponses(401, 403, ...notFound) },
        },
      },
      async (request) => ({
        strategies: await contextFields.strategiesUsing(request.params.contextField, scopeOf(request.params as { projectId?: string })),
      }),
    )

    app.post(
      base,
      {
        config: { permission: may('CREATE_CONTEXT_FIELD'), bodyRules: createFieldRules },
        schema: {
          tags,
          summary: 'Create a context field',
          description: `${beta}Answers 201 with the field and \`Location: context/<name>\`. ${project ? 'The field belongs to the project in the path.' : 'With `project`, it belongs to that project.'}`,
          ...(project ? { params: ProjectParams } : {}),
          body: CreateContextFieldBody,
          response: { 201: ContextFieldResponse, ...errorResponses(400, 401, 403, ...notFound, 409, 413, 415) },
        },
      },
      async (request, reply) => {
        const created = await contextFields.create(request.body, request.principal, scopeOf(request.params as { projectId?: string }))
        return reply.status(201).header('location', `context/${created.name}`).send(created)
      },
    )

    app.put(
      `${base}/:contextField`,
      {
        config: { permission: may('UPDATE_CONTEXT_FIELD'), bodyRules: updateFieldRules },
        schema: {
          tags,
          summary: 'Change a context field',
          description: `${beta}legalValues and stickiness are replaced (none and false when not sent); description and sortOrder are kept when not sent.`,
          params: project ? ProjectContextFieldParams : ContextFieldParams,
          body: UpdateContextFieldBody,
          response: { 200: NoContent, ...errorResponses(400, 401, 403, 404, 413, 415) },
        },
      },
      async (request, reply) => {
        await contextFields.update(
          request.params.contextField,
          request.body,
          request.principal,
          scopeOf(request.params as { projectId?: string }),
        )
        return sendEmpty(reply, 200)
      },
    )

    app.delete(
      `${base}/:contextField`,
      {
        config: { permission: may('DELETE_CONTEXT_FIELD') },
        schema: {
          tags,
          summary: 'Delete a context field',
          description: `${beta}Refused (409) while a strategy of an active flag constrains on it (the answer names the flags). Built-in fields too can be deleted, as the reference.`,
          params: project ? ProjectContextFieldParams : ContextFieldParams,
          response: { 200: NoContent, ...errorResponses(401, 403, 404, 409) },
        },
      },
      async (request, reply) => {
        await contextFields.delete(request.params.contextField, request.principal, scopeOf(request.params as { projectId?: string }))
        return sendEmpty(reply, 200)
      },
    )

    app.post(
      `${base}/:contextField/legal-values`,
      {
        config: { permission: may('UPDATE_CONTEXT_FIELD') },
        schema: {
          tags,
          summary: 'Add a legal value, or describe an existing one',
          description: `${beta}A new value goes last; an existing one keeps its place and takes the description sent (none when not sent).`,
          params: project ? ProjectContextFieldParams : ContextFieldParams,
          body: LegalValue,
          response: { 200: NoContent, ...errorResponses(400, 401, 403, 404, 413, 415) },
        },
      },
      async (request, reply) => {
        await contextFields.upsertLegalValue(
          request.params.contextField,
          request.body,
          request.principal,
          scopeOf(request.params as { projectId?: string }),
        )
        return sendEmpty(reply, 200)
      },
    )

    app.delete(
      `${base}/:contextField/legal-values/:legalValue`,
      {
        config: { permission: may('UPDATE_CONTEXT_FIELD') },
        schema: {
          tags,
          summary: 'Remove a legal value',
          description: `${beta}Constraints that use it keep it (as the reference). A value the field does not have: 200, nothing changes.`,
          params: project ? ProjectLegalValueParams : LegalValueParams,
          response: { 200: NoContent, ...errorResponses(401, 403, 404) },
        },
      },
      async (request, reply) => {
        await contextFields.deleteLegalValue(
          request.params.contextField,
          request.params.legalValue,
          request.principal,
          scopeOf(request.params as { projectId?: string }),
        )
        return sendEmpty(reply, 200)
      },
    )

    app.post(
      `${base}/validate`,
      {
        config: { permission: may('UPDATE_CONTEXT_FIELD'), bodyRules: nameRules },
        schema: {
          tags,
          summary: 'Could this name a new context field?',
          description: `${beta}200 when it is URL-friendly (1–100 characters) and no field has it; 400 or 409 (NameExistsError) otherwise.`,
          ...(project ? { params: ProjectParams } : {}),
          body: ValidateNameBody,
          response: { 200: NoContent, ...errorResponses(400, 401, 403, ...notFound, 409, 413, 415) },
        },
      },
      async (request, reply) => {
        await contextFields.validateName(request.body.name, scopeOf(request.params as { projectId?: string }))
        return sendEmpty(reply, 200)
      },
    )
  }
}
