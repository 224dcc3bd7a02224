// @ts-check
/** The admin API, and nothing else: every call the console makes is one a script could make. */
import { storedToken } from './session.js'

/** @typedef {{ path?: string, message: string, eventId?: number, eventType?: string, validationErrors?: string[] }} ErrorDetail */

export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {{ name?: string, message?: string, details?: ErrorDetail[], permissions?: string[] }} body
   */
  constructor(status, body) {
    super(body.message ?? `The server answered ${status}.`)
    this.status = status
    this.name = body.name ?? 'Error'
    /** @type {ErrorDetail[]} */
    this.details = body.details ?? [{ message: this.message }]
    this.permissions = body.permissions ?? []
  }
}

/**
 * Called on a 401 after sign-in (token deleted or expired, session ended); with a notice and the
 * login to fill in when the console knows why.
 * @type {(notice?: string, username?: string) => void}
 */
let onUnauthenticated = () => {}
/** @param {(notice?: string, username?: string) => void} handler */
export function setUnauthenticatedHandler(handler) {
  onUnauthenticated = handler
}

/**
 * Leaves for the sign-in page, saying why: for a change made here that ended this tab's session,
 * so the person is not left to meet an unexplained 401.
 * @param {string} notice
 * @param {string} username filled in on the sign-in form
 */
export function signedOut(notice, username) {
  onUnauthenticated(notice, username)
}

/**
 * @typedef {object} CallOptions
 * @property {string | null} [token] this one instead of the stored one; null: none (the session cookie, if any)
 * @property {boolean} [wrongPasswordIs401] a 401 here means a wrong password, not an ended sign-in
 * @property {AbortSignal} [signal]
 */

/**
 * @param {'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'} method
 * @param {string} path under /api/admin
 * @param {unknown} [body]
 * @param {CallOptions} [options]
 * @returns {Promise<any>}
 */
export function api(method, path, body, options = {}) {
  return request(method, `/api/admin${path}`, body, options)
}

/**
 * Any of Pennon's own addresses (`/auth/…`, `/logout`). With a token, it goes in the Authorization
 * header and no cookie is sent; without one the browser sends the session cookie, if any.
 * @param {'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'} method
 * @param {string} url
 * @param {unknown} [body]
 * @param {CallOptions} [options]
 * @returns {Promise<any>}
 */
export async function request(method, url, body, options = {}) {
  /** @type {Record<string, string>} */
  const headers = { accept: 'application/json' }
  const token = options.token === undefined ? storedToken() : options.token
  if (token) headers.authorization = token
  if (body !== undefined) headers['content-type'] = 'application/json'
  const response = await fetch(url, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: token ? 'omit' : 'same-origin',
    cache: 'no-store',
    signal: options.signal,
  })
  const text = await response.text()
  let parsed
  try {
    parsed = text === '' ? undefined : JSON.parse(text)
  } catch {
    parsed = undefined
  }
  if (!response.ok) {
    if (response.status === 401 && options.token === undefined && !options.wrongPasswordIs401) onUnauthenticated()
    throw new ApiError(response.status, parsed ?? {})
  }
  return parsed
}

/** Encodes one path segment. @param {string} value */
export const seg = (value) => encodeURIComponent(value)
