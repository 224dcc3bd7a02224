// @ts-check
/**
 * `#/reset-password?token=…`: where an invite or reset link leads (an admin hands it over, or
 * Pennon emails it when it has an SMTP server). It says whose password it sets, takes the new one
 * twice, and shows the password rules the server found broken. The token stays in the fragment,
 * which browsers never send, and goes to the server in request bodies only.
 */
import { ApiError, request } from '../api.js'
import { field, h, replace } from '../dom.js'
import { errorBox, loading } from '../ui.js'

/** @typedef {{ name: string | null, email: string | null, username: string | null, createdBy: string, role: { name: string } }} LinkOwner */

/**
 * @param {HTMLElement} main
 * @param {string} token
 * @param {(username: string) => void | Promise<void>} done after the password is set: who can now sign in
 */
export async function resetPasswordView(main, token, done) {
  const title = h('h1', null, 'Set your password')
  replace(main, h('div', { class: 'signin card' }, title, loading()))
  document.title = 'Set your password · Pennon'
  /** @type {LinkOwner} */
  let owner
  try {
    if (token === '') throw new ApiError(401, { message: 'This address holds no link token: open the whole link you were given.' })
    // In a body, never a URL: proxies and access logs write request lines down (docs/security.md).
    owner = await request('POST', '/auth/reset/validate', { token }, { token: null })
  } catch (error) {
    replace(
      main,
      h('div', { class: 'signin card' }, title, errorBox(error), h('p', null, h('a', { href: '#/projects' }, 'Go to the sign-in page.'))),
    )
    return
  }
  const login = owner.email ?? owner.username ?? ''
  const password = h('input', { type: 'password', name: 'password', autocomplete: 'new-password', required: true })
  const again = h('input', { type: 'password', name: 'confirmPassword', autocomplete: 'new-password', required: true })
  const message = h('div', { 'aria-live': 'polite' })
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Set password')
  const form = h(
    'form',
    { class: 'signin card', novalidate: true },
    title,
    h(
      'dl',
      { class: 'facts' },
      h('dt', null, 'For'),
      h('dd', { 'data-login': '' }, owner.name ? `${owner.name} (${login})` : login),
      h('dt', null, 'Root role'),
      h('dd', null, owner.role.name),
      h('dt', null, 'Link made by'),
      h('dd', null, owner.createdBy),
    ),
    // For password managers: the account this password belongs to.
    h('input', { type: 'text', name: 'username', autocomplete: 'username', value: login, hidden: true, readonly: true }),
    field('New password', password, {
      hint: PASSWORD_HINT,
    }),
    field('Repeat the password', again),
    message,
    h('div', { class: 'actions' }, submit),
  )
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    if (passwordsDiffer(password, again, message)) return
    submit.disabled = true
    try {
      await request('POST', '/auth/reset/password', { token, password: password.value }, { token: null })
      await done(login)
    } catch (error) {
      replace(message, passwordErrors(error))
      password.focus()
    } finally {
      submit.disabled = false
    }
  })
  replace(main, form)
  password.focus()
}

/** The password rules, as the sign-up, reset and profile forms state them. */
export const PASSWORD_HINT =
  'At least 10 characters, with upper and lower case letters, a number and a symbol; no character three times in a row.'

/**
 * Whether the two password fields differ; if so, says it in `message` and moves to the second.
 * @param {HTMLInputElement} password @param {HTMLInputElement} again @param {HTMLElement} message
 */
export function passwordsDiffer(password, again, message) {
  if (password.value === again.value) return false
  replace(message, h('p', { class: 'alert error', role: 'alert' }, 'The two passwords differ.'))
  again.focus()
  return true
}

/** The server's refusal; a weak password lists every rule it breaks. @param {unknown} error */
export function passwordErrors(error) {
  const rules = error instanceof ApiError ? error.details[0]?.validationErrors : undefined
  if (!rules?.length) return errorBox(error)
  return h(
    'div',
    { class: 'alert error', role: 'alert' },
    h('p', null, 'The password does not meet the rules:'),
    h(
      'ul',
      null,
      rules.map((rule) => h('li', null, rule)),
    ),
  )
}
