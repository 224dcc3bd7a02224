/**
 * Errors raised before a request reaches Fastify's pipeline (a malformed URL, a
 * request the HTTP parser rejects) still answer in the one error shape.
 */
import type { Socket } from 'node:net'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { AppError, cut, LONG_ECHO_LIMIT, validationFailed, type ErrorName } from './errors.ts'
import { errorBody } from './error-handler.ts'
import { isAdminPath } from './admin-pipeline.ts'
import type { Authenticate } from './auth.ts'

// As CommonJS: an ESM import of 'node:http' loads Node's fetch too (server-factory.ts).
const { STATUS_CODES } = process.getBuiltinModule('node:http')

/** An API under `prefix` that answers its errors in a shape of its own (OpenFeature's, say). */
export interface PrefixedErrors {
  prefix: string
  send(error: AppError, request: FastifyRequest, reply: FastifyReply): unknown
}

/**
 * Fastify's `frameworkErrors`: a malformed %-escape in the path is a 400, after authentication (and
 * its throttle) as always; under a prefix of `prefixed`, in that API's own shape.
 */
export function createFrameworkErrorHandler(authenticate: Authenticate, prefixed: readonly PrefixedErrors[] = []) {
  return async (error: FastifyError, request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    let appError: AppError = validationFailed([
      { path: '/params', message: 'The request path contains a malformed percent-encoded sequence.' },
    ])
    if (error.code !== 'FST_ERR_BAD_URL')
      appError = validationFailed([{ message: `The request could not be routed: ${cut(error.message, LONG_ECHO_LIMIT)}` }])
    if (isAdminPath(request.raw.url ?? '')) {
      try {
        await authenticate(request)
      } catch (authError) {
        if (authError instanceof AppError) appError = authError
        else throw authError
      }
    }
    const url = request.raw.url ?? ''
    const own = prefixed.find(({ prefix }) => url.startsWith(prefix))
    if (own) return void (await own.send(appError, request, reply))
    await reply.status(appError.status).type('application/json; charset=utf-8').send(errorBody(appError))
  }
}

/** The HTTP parser's rejections (oversized headers, a malformed request line, timeouts). */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  const status = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400
  const message =
    status === 408
      ? 'The request took too long to arrive.'
      : status === 431
        ? 'The request headers are too large.'
        : 'The request is not valid HTTP.'
  const name: ErrorName = status === 431 ? 'RequestHeaderFieldsTooLarge' : status === 408 ? 'RequestTimeoutError' : 'ValidationError'
  const body = JSON.stringify(errorBody(new AppError(status, name, message)))
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    )
  }
  socket.destroy(error)
}
