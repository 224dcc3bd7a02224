import type { FastifyServerOptions } from 'fastify'
import type { LogLevel } from '../config.ts'

/** Secrets never reach a log line: the Authorization header and any `secret` field are redacted. */
export const REDACTED_PATHS = ['req.headers.authorization', 'headers.authorization', 'secret', '*.secret', 'token', '*.token']

export function loggerOptions(level: LogLevel, stream?: NodeJS.WritableStream): FastifyServerOptions['logger'] {
  return { level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, ...(stream ? { stream } : {}) }
}
