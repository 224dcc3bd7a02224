/**
 * OFREP's own error bodies: `{key, errorCode, errorDetails}` (no key for the bulk endpoint), and
 * none at all on 401, 403 and 429, whose status says everything (the providers read nothing else).
 * Pennon's errors (http/errors.ts) and Fastify's become these here, for OFREP routes only.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { schemaErrorDetails, type AjvError } from '../../http/error-handler.ts'
import { AppError, cut } from '../../http/errors.ts'

export type OfrepErrorCode = 'PARSE_ERROR' | 'TARGETING_KEY_MISSING' | 'INVALID_CONTEXT' | 'GENERAL' | 'FLAG_NOT_FOUND'

export class OfrepError extends Error {
  readonly status: number
  readonly code: OfrepErrorCode
  constructor(status: number, code: OfrepErrorCode, details: string) {
    super(details)
    this.status = status
    this.code = code
  }
}

export const flagNotFound = (key: string) =>
  new OfrepError(
    404,
    'FLAG_NOT_FOUND',
    `No flag named ${JSON.stringify(cut(key))} is readable with this token (its environment and projects).`,
  )

const DETAILS_LIMIT = 1000

/** An OFREP route's answer to any error: the flag's key on the single-flag route. */
export function sendOfrepError(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const key = (request.params as { key?: string } | undefined)?.key
  const known = toOfrepError(error as FastifyError, request)
  if (known instanceof AppError) {
    // 401, 403 and 429: the status alone (and Retry-After).
    if (known.headers) reply.headers(known.headers)
    return reply.status(known.status).send()
  }
  if (known === undefined) {
    request.log.error({ err: error }, 'unexpected error')
    return reply.status(500).type('application/json; charset=utf-8').send({ errorDetails: 'An unexpected error occurred.' })
  }
  const body = { ...(key === undefined ? {} : { key }), errorCode: known.code, errorDetails: cut(known.message, DETAILS_LIMIT) }
  return reply.status(known.status).type('application/json; charset=utf-8').send(body)
}

function toOfrepError(error: FastifyError, request: FastifyRequest): OfrepError | AppError | undefined {
  if (error instanceof OfrepError) return error
  if (error instanceof AppError) {
    if (error.status === 401 || error.status === 403 || error.status === 429) return error
    // Raised while the body was read (json-body.ts): it never became a document.
    if (error.status === 400 && request.body === undefined) return new OfrepError(400, 'PARSE_ERROR', error.message)
    if (error.status === 413) return new OfrepError(400, 'GENERAL', 'The request body is larger than this server accepts.')
    if (error.status === 415) return new OfrepError(400, 'GENERAL', 'The request content type is not accepted. Send application/json.')
    if (error.status >= 400 && error.status < 500)
      return new OfrepError(400, error.status === 400 ? 'INVALID_CONTEXT' : 'GENERAL', error.message)
    return undefined
  }
  if (error.validation) {
    const details = schemaErrorDetails(error.validation as AjvError[], error.validationContext ?? 'body')
    return new OfrepError(400, 'INVALID_CONTEXT', details.map((detail) => detail.message).join(' '))
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new OfrepError(400, 'GENERAL', 'The request body is larger than this server accepts.')
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_TYPE':
      return new OfrepError(400, 'GENERAL', 'The request content type is not accepted. Send application/json.')
  }
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500)
    return new OfrepError(400, 'GENERAL', `The request could not be processed: ${cut(error.message, 200)}`)
  return undefined
}
