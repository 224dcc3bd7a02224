import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses, NoContent, sendEmpty } from '../../http/common-schemas.ts'
import { ExportQuery, ExportResult, ImportBody, ValidateResult } from './export-import-schemas.ts'
import type { ExportService } from './export-service.ts'
import { IMPORT_RETRY_AFTER_SECONDS, importRunning, type ImportService } from './import-service.ts'

const tags = ['Import/Export']

export const exportImportRoutes: FastifyPluginAsyncTypebox<{ exports: ExportService; imports: ImportService }> = async (
  app,
  { exports, imports },
) => {
  app.post(
    '/features-batch/export',
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: 'Export flags from an environment',
        description:
          'The flags chosen by `features` (when not empty), else by `tag` (a tag VALUE, of any type; archived flags included), else by `project` (its active flags), ' +
          'else every active flag: their state, strategies and variants in `environment`, their tags and parents, and the context fields, segments (id and name) and tag types those use. ' +
          '`downloadFile: true` sends it as an attachment. At most 1000 flags (400 otherwise).',
        body: ExportQuery,
        response: { 200: ExportResult, ...errorResponses(400, 401, 403, 413, 415) },
      },
    },
    async (request, reply) => {
      const result = await exports.export(request.body)
      if (request.body.downloadFile === true)
        reply.header('content-disposition', `attachment; filename="export-${new Date().toISOString().slice(0, 10)}.json"`)
      return result
    },
  )

  app.post(
    '/features-batch/validate',
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: 'Validate an import',
        description:
          'What importing `data` into `project` and `environment` would meet: errors (the import would be refused), warnings, and the permissions the caller lacks. ' +
          "When the caller may import and the reference's checks find no error, the import is tried and rolled back: whatever it would refuse is the error, in the import's words. Changes nothing. " +
          `It takes an import's turn: while an import or another validation's trial runs on this instance, 429 \`TooManyRequestsError\` with \`Retry-After: ${IMPORT_RETRY_AFTER_SECONDS}\`.`,
        body: ImportBody,
        response: { 200: ValidateResult, ...errorResponses(400, 401, 403, 413, 415, 429) },
      },
      onRequest: async () => {
        if (imports.running()) throw importRunning()
      },
    },
    async (request) => imports.validate(request.body, request.principal),
  )

  app.post(
    '/features-batch/import',
    {
      // What else it needs depends on the file (and is checked with it): the reference's list, 403 naming the missing ones.
      config: { permission: 'UPDATE_FEATURE' },
      schema: {
        tags,
        summary: 'Import flags into a project and environment',
        description:
          'All or nothing, in one transaction, with the events of the equivalent admin calls and a closing `features-imported`. 400 for what validate calls errors ' +
          '(the first kind found), 403 for missing permissions, 404 for an unknown project or an environment not in it. ' +
          `One import runs at a time per Pennon instance: while one runs, another gets 429 \`TooManyRequestsError\` with \`Retry-After: ${IMPORT_RETRY_AFTER_SECONDS}\`, its body unread.`,
        body: ImportBody,
        response: { 200: NoContent, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429) },
      },
      // After the admin pipeline's checks (authentication, permission, content type), before the body is read and parsed.
      onRequest: async () => {
        if (imports.running()) throw importRunning()
      },
    },
    async (request, reply) => {
      await imports.import(request.body, request.principal)
      return sendEmpty(reply, 200)
    },
  )
}
