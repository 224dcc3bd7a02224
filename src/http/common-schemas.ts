import { Type, type TSchema } from '@sinclair/typebox'
import type { FastifyReply } from 'fastify'
import type { Readable } from 'node:stream'
import { invalid, quote, validationFailed, type ErrorDetail as Problem } from './errors.ts'

export const ErrorDetail = Type.Object({
  path: Type.Optional(Type.String()),
  message: Type.String(),
  eventId: Type.Optional(Type.Integer({ description: 'An event the detail is about (a revert refused for a later event)' })),
  eventType: Type.Optional(Type.String()),
  validationErrors: Type.Optional(Type.Array(Type.String(), { description: 'Every rule a password breaks (OwaspValidationError)' })),
})

export const ErrorResponse = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    message: Type.String(),
    details: Type.Array(ErrorDetail),
    permissions: Type.Optional(Type.Array(Type.String())),
  },
  { $id: 'ErrorResponse', description: 'Every error, at every status, has this shape.' },
)

const errorRef = Type.Ref('ErrorResponse')

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'ValidationError: the request does not match the schema or breaks a rule',
  401: 'AuthenticationRequired: no token, or one that is unknown or expired',
  403: 'NoAccessError: the credential lacks the permission',
  404: 'NotFoundError',
  409: 'NameExistsError or InvalidOperationError',
  413: 'PayloadTooLargeError',
  415: 'ContentTypeerror: the body must be application/json',
  429: 'TooManyRequestsError: try again after the seconds Retry-After says',
  500: 'InternalError',
}

/** The error responses of a route, for its `response` schema: `...errorResponses(400, 401, 403)`. */
export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  const out: Record<number, TSchema> = {}
  for (const status of [...statuses, 500]) out[status] = { ...errorRef, description: ERROR_DESCRIPTIONS[status] }
  return out
}

/** `response` entry for success statuses without a body (202/204, and 200 where the reference sends nothing). */
export const NoContent = Type.Null({ description: 'No body' })

/** Sends a status with no body and no content type, as the reference does for 200/202/204 without content. */
export function sendEmpty(reply: FastifyReply, status: 200 | 202 | 204): FastifyReply {
  return (reply as FastifyReply).code(status).send()
}

/**
 * Sends JSON bytes as they are: a Buffer or a stream bypasses Fastify's serializer, so the
 * response schema documents the shape without re-encoding a body that is already JSON.
 */
export function sendJsonText(reply: FastifyReply, body: Buffer | Readable): FastifyReply {
  if (!Buffer.isBuffer(body)) {
    // Too late for an error response: the client sees a cut body. (A client leaving is no error.)
    body.once('error', (error) => reply.log.error({ err: error }, 'stream failed after the response began; the response was cut'))
  }
  return reply.type('application/json; charset=utf-8').send(body)
}

/**
 * A yes-or-no query parameter: `true` or `false`, as sent (query values are text; types are not
 * coerced). One enum, so a wrong value is refused naming both ("must be one of "true", "false"").
 */
export const QueryFlag = (description: string) => Type.Unsafe<'true' | 'false'>({ type: 'string', enum: ['true', 'false'], description })

/** Integer ids in the path arrive as text; `parseIntegerId` turns them into numbers or a 400. */
export const IntegerIdParam = Type.String({ maxLength: 1000, description: 'a positive integer (1 to 2147483647)' })

export function parseIntegerId(value: string, path: string): number {
  const id = /^[1-9][0-9]{0,9}$/.test(value) ? Number(value) : Number.NaN
  if (!(id <= 2 ** 31 - 1)) {
    throw invalid(`The \`${path}\` property must be an integer from 1 to 2147483647. You sent ${quote(value)}.`, path)
  }
  return id
}

/**
 * Names used in URLs (project ids, flag names): 1–100 characters that
 * `encodeURIComponent` leaves unchanged, and not `.` or `..`.
 */
export function urlFriendlyNameProblems(value: string, path: string): Problem[] {
  if (value.length === 0) return [{ path, message: `The \`${path}\` property must not be empty.` }]
  if (value.length > 100)
    return [{ path, message: `The \`${path}\` property must be at most 100 characters long. You sent ${quote(value)}.` }]
  if (encodeURIComponent(value) !== value || value === '.' || value === '..') {
    return [
      {
        path,
        message: `The \`${path}\` property must be URL-friendly (letters, digits and - _ . ! ~ * ' ( ) only, not "." or ".."). You sent ${quote(value)}.`,
      },
    ]
  }
  return []
}

/** As urlFriendlyNameProblems, thrown as a 400. */
export function checkUrlFriendlyName(value: string, path: string): void {
  const problems = urlFriendlyNameProblems(value, path)
  if (problems.length > 0) throw validationFailed(problems)
}
