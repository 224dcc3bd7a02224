/**
 * Errors raised before a request reaches Fastify's pipeline (a malformed URL, a
 * request the HTTP parser rejects) still answer in the one error shape.
 */
import { STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { AppError, cut, LONG_ECHO_LIMIT, validationFailed, type ErrorName } from './errors.ts'
import { errorBody } from './error-handler.ts'
import { isAdminPath } from './admin-pipeline.ts'
import type { Authenticate } from './auth.ts'

/** Fastify's `frameworkErrors`: a malformed %-escape in the path is a 400, after authentication (and its throttle) as always. */
export function createFrameworkErrorHandler(authenticate: Authenticate) {
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
