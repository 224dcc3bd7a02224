// @ts-check
/**
 * Who is signed in: a person with a password (a session: an HttpOnly cookie no script here can
 * read), or a token. The token lives in this tab's sessionStorage only: never in a URL, a cookie
 * or a log line, and gone when the tab closes.
 */

const TOKEN_KEY = 'pennon.token'

/** @typedef {{ kind: string, name: string, id?: number, session?: boolean, rootRole: 'Admin' | 'Editor' | 'Viewer', permissions: string[] }} Me */

/** @type {{ me: Me | null }} */
export const session = { me: null }

export function storedToken() {
  return sessionStorage.getItem(TOKEN_KEY)
}

/** @param {string} token */
export function storeToken(token) {
  sessionStorage.setItem(TOKEN_KEY, token)
}

export function forgetToken() {
  sessionStorage.removeItem(TOKEN_KEY)
  session.me = null
}

/** `AUTH_TYPE=none`: the server says so in index.html, and nobody signs in. */
export function openAccess() {
  return document.querySelector('meta[name="pennon-auth-type"]')?.getAttribute('content') === 'none'
}

/**
 * Whether the caller holds a permission (ADMIN holds them all).
 * @param {string} permission
 */
export function can(permission) {
  const held = session.me?.permissions ?? []
  return held.includes('ADMIN') || held.includes(permission)
}
