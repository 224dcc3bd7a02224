/** The only place where an error becomes an HTTP response: one body shape for every status. */
import { randomUUID } from 'node:crypto'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { cleanExcept, type BodyRules } from './body-rules.ts'
import { AppError, cut, ECHO_LIMIT, LONG_ECHO_LIMIT, quote, validationFailed, type ErrorDetail } from './errors.ts'

export interface ErrorBody {
  id: string
  name: string
  message: string
  details: ErrorDetail[]
  permissions?: string[]
}

// The last guard against an error that echoes what was sent whole: every message quotes at most
// ECHO_LIMIT characters of each thing it names, so no message Pennon writes comes near this.
const MESSAGE_LIMIT = 1000

const boundedDetail = ({ path, message, ...about }: ErrorDetail): ErrorDetail => ({
  ...(path === undefined ? {} : { path: cut(path, ECHO_LIMIT) }),
  message: cut(message, MESSAGE_LIMIT),
  ...about,
})

export function errorBody(error: AppError, id: string = randomUUID()): ErrorBody {
  const message = cut(error.message, MESSAGE_LIMIT)
  const body: ErrorBody = { id, name: error.errorName, message, details: error.details?.map(boundedDetail) ?? [{ message }] }
  if (error.permissions) body.permissions = error.permissions
  return body
}

export interface AjvError {
  keyword: string
  instancePath: string
  schemaPath: string
  message?: string
  params: Record<string, unknown>
  data?: unknown
}

const CONTEXT_NAMES: Record<string, string> = { body: 'body', params: 'params', querystring: 'query', headers: 'headers' }

const MAX_DETAILS = 50

/**
 * A union (`string | null`, a set of literals) fails with one error per branch plus
 * a summary; when every branch error is a plain type/const/enum mismatch at the same
 * place, they become one sentence: "must be string or null".
 */
interface MergedUnion {
  merged: true
  path: string
  allowed: string[]
  data: unknown
}

function mergeUnions(errors: readonly AjvError[]): Array<AjvError | MergedUnion> {
  const consumed = new Set<AjvError>()
  const merged = new Map<AjvError, MergedUnion>()
  for (const union of errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf')) {
    const branches = errors.filter((e) => e !== union && e.schemaPath.startsWith(`${union.schemaPath}/`))
    consumed.add(union)
    if (
      branches.length === 0 ||
      !branches.every((e) => e.instancePath === union.instancePath && ['type', 'const', 'enum'].includes(e.keyword))
    )
      continue
    const allowed = branches.flatMap((e) =>
      e.keyword === 'type'
        ? [String(e.params.type)]
        : e.keyword === 'const'
          ? [JSON.stringify(e.params.allowedValue)]
          : (e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)),
    )
    for (const branch of branches) consumed.add(branch)
    merged.set(union, { merged: true, path: union.instancePath, allowed: [...new Set(allowed)], data: union.data })
  }
  return errors.flatMap((e): Array<AjvError | MergedUnion> => {
    const union = merged.get(e)
    if (union) return [union]
    return consumed.has(e) ? [] : [e]
  })
}

/**
 * Turns ajv's errors into details whose messages name the property and quote what was sent.
 * Property paths hold the caller's keys: each is cut like a quoted value.
 */
export function schemaErrorDetails(errors: readonly AjvError[], context: string): ErrorDetail[] {
  const root = `/${CONTEXT_NAMES[context] ?? context}`
  const details: ErrorDetail[] = []
  for (const error of mergeUnions(errors)) {
    if ('merged' in error) {
      const path = cut(root + error.path)
      const literals = error.allowed.every((a) => a.startsWith('"'))
      const expected = literals ? `one of ${error.allowed.join(', ')}` : error.allowed.join(' or ')
      details.push({ path, message: `The \`${path}\` property must be ${expected}. You sent ${quote(error.data)}.` })
      continue
    }
    const path = cut(root + error.instancePath)
    switch (error.keyword) {
      case 'required': {
        const missing = cut(`${root}${error.instancePath}/${String(error.params.missingProperty)}`)
        details.push({ path: missing, message: `The \`${missing}\` property is required. It was not present on the data you sent.` })
        break
      }
      case 'additionalProperties': {
        const extra = cut(`${root}${error.instancePath}/${String(error.params.additionalProperty)}`)
        details.push({ path: extra, message: `The \`${path}\` object does not allow the property \`${extra}\`. Remove it.` })
        break
      }
      case 'enum': {
        const allowed = (error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')
        details.push({ path, message: `The \`${path}\` property must be one of ${allowed}. You sent ${quote(error.data)}.` })
        break
      }
      default:
        details.push({ path, message: `The \`${path}\` property ${error.message}. You sent ${quote(error.data)}.` })
    }
  }
  // A huge body of wrong values must not become a huge error.
  if (details.length > MAX_DETAILS) {
    const rest = details.length - MAX_DETAILS
    return [...details.slice(0, MAX_DETAILS), { message: `${rest} more problem${rest > 1 ? 's' : ''} not listed.` }]
  }
  return details
}

/** Fastify's own errors (body parsing, limits, media types) in Pennon's words. */
/** Where each schema fault is: a missing or an unknown property's is that property's pointer. */
function faultPointers(errors: readonly AjvError[]): string[] {
  return errors.map((error) => {
    const property =
      error.keyword === 'required'
        ? error.params.missingProperty
        : error.keyword === 'additionalProperties'
          ? error.params.additionalProperty
          : undefined
    return property === undefined
      ? error.instancePath
      : `${error.instancePath}/${String(property).replaceAll('~', '~0').replaceAll('/', '~1')}`
  })
}

/**
 * What is wrong with a body that failed its schema: the schema's faults, and the route's body
 * rules run on every field the schema found no fault in (body-rules.ts), every violation at once.
 */
export function bodyReport(errors: readonly AjvError[], body: unknown, rules: BodyRules | undefined, context = 'body'): ErrorDetail[] {
  const details = schemaErrorDetails(errors, context)
  // (Not when the schema's own report was already cut short.)
  if (context === 'body' && rules && details.length <= MAX_DETAILS) {
    try {
      details.push(...rules(body, cleanExcept(faultPointers(errors))))
    } catch {
      // A rule that cannot read this malformed body adds nothing: the schema's report stands.
    }
  }
  return details.length > MAX_DETAILS + 1
    ? [...details.slice(0, MAX_DETAILS), { message: `${details.length - MAX_DETAILS} more problems not listed.` }]
    : details
}

function validationError(error: FastifyError, request: FastifyRequest): AppError {
  return validationFailed(
    bodyReport(error.validation as AjvError[], request.body, request.routeOptions.config?.bodyRules, error.validationContext ?? 'body'),
  )
}

function fromFastifyError(error: FastifyError, request: FastifyRequest): AppError | undefined {
  if (error.validation) return validationError(error, request)
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError(413, 'PayloadTooLargeError', 'The request body is larger than this server accepts.')
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_TYPE':
      return new AppError(415, 'ContentTypeerror', 'The request content type is not accepted. Send application/json.')
    case 'FST_ERR_BAD_URL':
      return validationFailed([{ path: '/params', message: 'The request path contains a malformed percent-encoded sequence.' }])
  }
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    return validationFailed([{ message: `The request could not be processed: ${cut(error.message, LONG_ECHO_LIMIT)}` }])
  }
  return undefined
}

export function sendError(reply: FastifyReply, error: AppError): FastifyReply {
  if (error.headers) reply.headers(error.headers)
  return reply.status(error.status).type('application/json; charset=utf-8').send(errorBody(error))
}

export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const known = error instanceof AppError ? error : fromFastifyError(error, request)
    if (known) return sendError(reply, known)
    const id = randomUUID()
    request.log.error({ err: error, errorId: id }, 'unexpected error')
    return reply
      .status(500)
      .type('application/json; charset=utf-8')
      .send(errorBody(new AppError(500, 'InternalError', `An unexpected error occurred. Error id: ${id}.`), id))
  })
}
