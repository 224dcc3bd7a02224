/**
 * The one error type services and plumbing throw. `error-handler.ts` is the only
 * place that turns it (or anything else) into an HTTP response.
 */
export interface ErrorDetail {
  path?: string
  message: string
  /** A detail about an event (a revert's conflicting later event): its id and type. */
  eventId?: number
  eventType?: string
  /** Every rule a password breaks (OwaspValidationError). */
  validationErrors?: string[]
}

export type ErrorName =
  | 'ValidationError'
  | 'AuthenticationRequired'
  | 'NoAccessError'
  | 'NotFoundError'
  | 'NameExistsError'
  | 'InvalidOperationError'
  | 'ArchivedFeatureError'
  | 'ExceedsLimitError'
  | 'PayloadTooLargeError'
  | 'ContentTypeerror'
  | 'TooManyRequestsError'
  | 'MisdirectedRequestError'
  | 'RequestHeaderFieldsTooLarge'
  | 'RequestTimeoutError'
  | 'InternalError'
  | 'OwaspValidationError'
  | 'PasswordMismatch'
  | 'MaintenanceModeError'

export class AppError extends Error {
  readonly status: number
  readonly errorName: ErrorName
  readonly details: ErrorDetail[] | undefined
  readonly permissions: string[] | undefined
  /** Response headers that belong to the error (Retry-After on a 429). */
  readonly headers: Record<string, string> | undefined

  constructor(
    status: number,
    errorName: ErrorName,
    message: string,
    extra: { details?: ErrorDetail[]; permissions?: string[]; headers?: Record<string, string> } = {},
  ) {
    super(message)
    this.status = status
    this.errorName = errorName
    this.details = extra.details
    this.permissions = extra.permissions
    this.headers = extra.headers
  }
}

/** How many characters of what a caller sent (a value, a name, a property path, a header) a message shows. */
export const ECHO_LIMIT = 100
/** The same for a sentence that carries the caller's input inside words of its own: a request path, a parser's message. */
export const LONG_ECHO_LIMIT = 200

/**
 * `text` cut to at most `max` characters, with a visible `…` when something was cut, and never
 * between the two halves of a surrogate pair. So an error stays small whatever was sent.
 */
export function cut(text: string, max: number = ECHO_LIMIT): string {
  if (text.length <= max) return text
  const last = text.charCodeAt(max - 1)
  const end = last >= 0xd800 && last <= 0xdbff ? max - 1 : max
  return `${text.slice(0, end)}…`
}

/** JSON-encodes what a caller sent, cut at 100 characters, for messages that quote it. */
export function quote(value: unknown): string {
  return cut(value === undefined ? 'undefined' : (JSON.stringify(value) ?? String(value)))
}

export const invalid = (message: string, path?: string): AppError =>
  new AppError(400, 'ValidationError', message, { details: [path === undefined ? { message } : { path, message }] })

export const validationFailed = (details: ErrorDetail[]): AppError => {
  const first = details[0]?.message ?? 'The request is invalid.'
  const more = details.length > 1 ? ` (${details.length - 1} more problem${details.length > 2 ? 's' : ''} listed in details)` : ''
  return new AppError(400, 'ValidationError', first + more, { details })
}

export const notFound = (message: string): AppError => new AppError(404, 'NotFoundError', message)
/** A change refused while maintenance mode is on (features/maintenance/), as the reference's 503. */
export const inMaintenance = (): AppError =>
  new AppError(
    503,
    'MaintenanceModeError',
    'Pennon is in maintenance mode: changes are refused until an admin turns it off (POST /api/admin/maintenance with {"enabled": false}).',
  )
export const nameExists = (message: string): AppError => new AppError(409, 'NameExistsError', message)
export const invalidOperation = (message: string): AppError => new AppError(409, 'InvalidOperationError', message)
export const exceedsLimit = (message: string): AppError => new AppError(400, 'ExceedsLimitError', message)
export const unauthenticated = (message: string): AppError => new AppError(401, 'AuthenticationRequired', message)
export const forbidden = (message: string, permissions: string[]): AppError => new AppError(403, 'NoAccessError', message, { permissions })
export const tooManyRequests = (
  retryAfterSeconds: number,
  message = `Too many failed authentications from this address: try again in ${retryAfterSeconds} seconds.`,
): AppError => new AppError(429, 'TooManyRequestsError', message, { headers: { 'retry-after': String(retryAfterSeconds) } })
