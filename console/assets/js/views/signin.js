// @ts-check
import { api, ApiError, request } from '../api.js'
import { field, h, replace } from '../dom.js'
import { forgetToken, session, storeToken } from '../session.js'

/** The way chosen last (kept while the tab lives, so a sign-out comes back to it). */
let way = /** @type {'password' | 'token'} */ ('password')

/**
 * The sign-in page: a person's email (or username) and password, which starts a session (an
 * HttpOnly cookie), or, for automation, an admin API token or a service-account token, checked
 * with GET /api/admin/me before it is kept.
 * @param {HTMLElement} main
 * @param {string | undefined} notice
 * @param {() => void} done
 * @param {{ username?: string }} [prefill]
 */
export async function signInView(main, notice, done, prefill = {}) {
  const message = h('div', { 'aria-live': 'polite' }, notice ? h('p', { class: 'alert info' }, notice) : null)
  const slot = h('div')
  const choices = /** @type {const} */ ([
    ['password', 'Email and password'],
    ['token', 'API token'],
  ])
  const tabs = h(
    'div',
    { class: 'tabs', role: 'group', 'aria-label': 'Sign in with' },
    choices.map(([value, label]) =>
      h('button', { type: 'button', class: 'tab', 'aria-pressed': String(way === value), onclick: () => show(value, true) }, label),
    ),
  )
  // Single sign-on, when enabled: a link to the provider (GET /auth/options says which ways are open).
  const singleSignOn = h('div')
  replace(main, h('div', { class: 'signin card' }, h('h1', null, 'Sign in to Pennon'), singleSignOn, tabs, message, slot))
  document.title = 'Sign in · Pennon'
  show(way, false)
  request('GET', '/auth/options', undefined, { token: null })
    .then((/** @type {{ password: boolean, options: { message: string, path: string }[] }} */ ways) => {
      replace(
        singleSignOn,
        ways.options.map((option) => h('p', null, h('a', { class: 'button primary', href: option.path }, option.message))),
      )
      if (!ways.password) passwordsOff()
    })
    .catch(() => {})

  /**
   * Password sign-in is turned off: no password form, only the provider's button, and API tokens
   * (which work whatever the setting says) behind a disclosure for automation.
   */
  function passwordsOff() {
    tabs.remove()
    const form = tokenForm()
    replace(slot, h('details', { class: 'token-sign-in' }, h('summary', null, 'Sign in with an API token'), form))
  }

  /** @param {'password' | 'token'} next @param {boolean} clearMessage */
  function show(next, clearMessage) {
    way = next
    for (const [index, button] of [...tabs.children].entries()) button.setAttribute('aria-pressed', String(choices[index]?.[0] === next))
    if (clearMessage) replace(message)
    const form = next === 'password' ? passwordForm() : tokenForm()
    replace(slot, form)
    const empty = [...form.querySelectorAll('input')].find((input) => input.value === '')
    empty?.focus()
  }

  /** @param {string} text @param {HTMLElement} focus */
  function refuse(text, focus) {
    replace(message, h('p', { class: 'alert error', role: 'alert' }, text))
    focus.focus()
  }

  function passwordForm() {
    const username = h('input', {
      type: 'text',
      name: 'username',
      autocomplete: 'username',
      spellcheck: 'false',
      required: true,
      value: prefill.username ?? '',
    })
    const password = h('input', { type: 'password', name: 'password', autocomplete: 'current-password', required: true })
    const submit = h('button', { type: 'submit', class: 'primary' }, 'Sign in')
    const form = h(
      'form',
      { novalidate: true },
      field('Email or username', username),
      field('Password', password, { hint: 'Forgot it? Ask for a link below, or an admin can make you one.' }),
      h('div', { class: 'actions' }, submit),
    )
    const wrapper = h('div', null, form, forgotForm(username))
    form.addEventListener('submit', async (event) => {
      event.preventDefault()
      if (username.value.trim() === '' || password.value === '') {
        refuse('Enter your email (or username) and your password.', username.value.trim() === '' ? username : password)
        return
      }
      submit.disabled = true
      try {
        await request('POST', '/auth/simple/login', { username: username.value.trim(), password: password.value }, { token: null })
        forgetToken()
        session.me = await api('GET', '/me', undefined, { token: null })
        done()
      } catch (error) {
        password.value = ''
        refuse(error instanceof ApiError ? error.message : 'Pennon could not be reached.', password)
      } finally {
        submit.disabled = false
      }
    })
    return wrapper
  }

  /**
   * "Forgot your password?": asks POST /auth/reset/password-email, whose answer is the same for
   * every address (it tells nobody who has an account), so the page says only what may happen.
   * @param {HTMLInputElement} username what was typed above, taken when it is an email
   */
  function forgotForm(username) {
    const email = h('input', { type: 'email', name: 'email', autocomplete: 'email', spellcheck: 'false', required: true })
    const status = h('div', { 'aria-live': 'polite' })
    const submit = h('button', { type: 'submit' }, 'Email me a link')
    const form = h('form', { novalidate: true }, field('Your email', email), status, h('div', { class: 'actions' }, submit))
    // Filled in as it opens (on the click, before the toggle), from an email typed above.
    const summary = h('summary', null, 'Forgot your password?')
    summary.addEventListener('click', () => {
      if (email.value === '' && username.value.includes('@')) email.value = username.value.trim()
    })
    const details = h('details', { class: 'forgot' }, summary, form)
    form.addEventListener('submit', async (event) => {
      event.preventDefault()
      const address = email.value.trim()
      if (!address.includes('@')) {
        replace(status, h('p', { class: 'alert error', role: 'alert' }, 'Enter the email you sign in with.'))
        email.focus()
        return
      }
      submit.disabled = true
      try {
        await request('POST', '/auth/reset/password-email', { email: address }, { token: null })
        replace(
          status,
          h(
            'p',
            { class: 'alert info' },
            `If ${address} has an account and this Pennon can send email, a link to set a new password is on its way (it works for 24 hours). If nothing arrives, ask an admin for a link.`,
          ),
        )
      } catch (error) {
        replace(
          status,
          h('p', { class: 'alert error', role: 'alert' }, error instanceof ApiError ? error.message : 'Pennon could not be reached.'),
        )
      } finally {
        submit.disabled = false
      }
    })
    return details
  }

  function tokenForm() {
    const token = h('input', { type: 'password', name: 'token', autocomplete: 'off', spellcheck: 'false', required: true })
    const submit = h('button', { type: 'submit', class: 'primary' }, 'Sign in')
    const form = h(
      'form',
      { novalidate: true },
      h(
        'p',
        null,
        'For automation: paste an admin API token, a service-account token or a personal access token. It is kept in this tab only, until you sign out or close it.',
      ),
      field('API token', token, { hint: 'Starts with *:*. for an admin token. Client and frontend tokens cannot use the admin API.' }),
      h('div', { class: 'actions' }, submit),
    )
    form.addEventListener('submit', async (event) => {
      event.preventDefault()
      const value = token.value.trim()
      if (value === '') {
        refuse('Enter a token.', token)
        return
      }
      submit.disabled = true
      try {
        session.me = await api('GET', '/me', undefined, { token: value })
        storeToken(value)
        token.value = ''
        done()
      } catch (error) {
        refuse(
          error instanceof ApiError && error.status === 403
            ? 'This token cannot use the admin API: client and frontend tokens are for SDKs.'
            : error instanceof ApiError && error.status === 401
              ? 'This token is unknown, deleted or expired.'
              : error instanceof ApiError
                ? error.message
                : 'Pennon could not be reached.',
          token,
        )
      } finally {
        submit.disabled = false
      }
    })
    return form
  }
}
