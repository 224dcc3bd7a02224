// @ts-check
/** The admin API, and nothing else: every call the console makes is one a script could make. */
import { storedToken } from './session.js'

/** @typedef {{ path?: string, message: string, eventId?: number, eventType?: string }} ErrorDetail */

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

/** Called on a 401 after sign-in (token deleted or expired). */
let onUnauthenticated = () => {}
/** @param {() => void} handler */
export function setUnauthenticatedHandler(handler) {
  onUnauthenticated = handler
}

/**
 * @param {'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'} method
 * @param {string} path under /api/admin
 * @param {unknown} [body]
 * @param {{ token?: string | null, signal?: AbortSignal }} [options] token: this one instead of the stored one
 * @returns {Promise<any>}
 */
export async function api(method, path, body, options = {}) {
  /** @type {Record<string, string>} */
  const headers = { accept: 'application/json' }
  const token = options.token === undefined ? storedToken() : options.token
  if (token) headers.authorization = token
  if (body !== undefined) headers['content-type'] = 'application/json'
  const response = await fetch(`/api/admin${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'omit',
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
    if (response.status === 401 && options.token === undefined) onUnauthenticated()
    throw new ApiError(response.status, parsed ?? {})
  }
  return parsed
}

/** Encodes one path segment. @param {string} value */
export const seg = (value) => encodeURIComponent(value)
