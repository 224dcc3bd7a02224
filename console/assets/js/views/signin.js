// @ts-check
import { api, ApiError } from '../api.js'
import { field, h, replace } from '../dom.js'
import { session, storeToken } from '../session.js'

/**
 * The sign-in form: an admin API token or a service-account token. It is checked with
 * GET /api/admin/me before it is kept.
 * @param {HTMLElement} main
 * @param {string | undefined} notice
 * @param {() => void} done
 */
export async function signInView(main, notice, done) {
  const token = h('input', { type: 'password', name: 'token', autocomplete: 'off', spellcheck: 'false', required: true })
  const message = h('div', { 'aria-live': 'polite' }, notice ? h('p', { class: 'alert info' }, notice) : null)
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Sign in')
  const form = h('form', { class: 'signin card', novalidate: true },
    h('h1', null, 'Sign in to Pennon'),
    h('p', null, 'Paste an admin API token or a service-account token. It is kept in this tab only, until you sign out or close it.'),
    field('API token', token, { hint: 'Starts with *:*. for an admin token. Client and frontend tokens cannot use the admin API.' }),
    message,
    h('div', { class: 'actions' }, submit))
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    const value = token.value.trim()
    if (value === '') {
      replace(message, h('p', { class: 'alert error', role: 'alert' }, 'Enter a token.'))
      token.focus()
      return
    }
    submit.disabled = true
    try {
      session.me = await api('GET', '/me', undefined, { token: value })
      storeToken(value)
      token.value = ''
      done()
    } catch (error) {
      const text = error instanceof ApiError && error.status === 403
        ? 'This token cannot use the admin API: client and frontend tokens are for SDKs.'
        : error instanceof ApiError && error.status === 401
          ? 'This token is unknown, deleted or expired.'
          : error instanceof ApiError ? error.message : 'Pennon could not be reached.'
      replace(message, h('p', { class: 'alert error', role: 'alert' }, text))
      token.focus()
    } finally {
      submit.disabled = false
    }
  })
  replace(main, form)
  document.title = 'Sign in · Pennon'
  token.focus()
}
