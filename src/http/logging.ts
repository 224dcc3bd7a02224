import type { FastifyServerOptions } from 'fastify'
import type { LogLevel } from '../config.ts'

/** Secrets never reach a log line: the Authorization header and any `secret` field are redacted. */
export const REDACTED_PATHS = ['req.headers.authorization', 'headers.authorization', 'secret', '*.secret', 'token', '*.token']

/**
 * A URL as logged: secrets in the path are redacted: a project token's (DELETE
 * …/projects/:p/api-tokens/:token) and an invite link's (/invite/:token/…, …/invite-link/tokens/:token).
 */
export function loggedUrl(url: string): string {
  return url
    .replace(/(\/projects\/[^/?]*\/api-tokens\/)[^/?]+/, '$1[redacted]')
    .replace(/^(\/invite\/|\/api\/admin\/invite-link\/tokens\/)[^/?]+/, '$1[redacted]')
}

interface LoggedRequest {
  method: string
  url: string
  host?: string
  ip?: string
  socket?: { remotePort?: number }
}

export function loggerOptions(level: LogLevel, stream?: NodeJS.WritableStream): FastifyServerOptions['logger'] {
  return {
    level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    // Fastify's own request fields, but with the URL as loggedUrl shows it.
    serializers: {
      req: (request: LoggedRequest) => ({
        method: request.method,
        url: loggedUrl(request.url),
        host: request.host,
        remoteAddress: request.ip,
        remotePort: request.socket?.remotePort,
      }),
    },
    ...(stream ? { stream } : {}),
  }
}
