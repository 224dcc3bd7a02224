// @ts-check
/**
 * `#/new-user?invite=…`: where an invite link (a public sign-up token) leads. It checks the link,
 * then takes an email, a name and a password (twice) and signs the person up; they then sign in.
 * The token stays in the fragment, which browsers never send by themselves.
 */
import { ApiError, request } from '../api.js'
import { field, h, replace } from '../dom.js'
import { errorBox, loading } from '../ui.js'
import { PASSWORD_HINT, passwordErrors, passwordsDiffer } from './reset-password.js'

/**
 * @param {HTMLElement} main
 * @param {string} token
 * @param {(email: string) => void | Promise<void>} done after the sign-up: who can now sign in
 */
export async function newUserView(main, token, done) {
  const title = h('h1', null, 'Join Pennon')
  replace(main, h('div', { class: 'signin card' }, title, loading()))
  document.title = 'Join · Pennon'
  const path = `/invite/${encodeURIComponent(token)}`
  try {
    if (token === '') throw new ApiError(400, { message: 'This address holds no invite: open the whole link you were given.' })
    await request('GET', `${path}/validate`, undefined, { token: null })
  } catch (error) {
    replace(
      main,
      h('div', { class: 'signin card' }, title, errorBox(error), h('p', null, h('a', { href: '#/projects' }, 'Go to the sign-in page.'))),
    )
    return
  }
  const email = h('input', { type: 'email', name: 'email', autocomplete: 'email', required: true })
  const name = h('input', { type: 'text', name: 'name', autocomplete: 'name', required: true })
  const password = h('input', { type: 'password', name: 'password', autocomplete: 'new-password', required: true })
  const again = h('input', { type: 'password', name: 'confirmPassword', autocomplete: 'new-password', required: true })
  const message = h('div', { 'aria-live': 'polite' })
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Sign up')
  const form = h(
    'form',
    { class: 'signin card', novalidate: true },
    title,
    h('p', null, 'You were invited: make your account. You will be able to read everything (the Viewer role).'),
    field('Email', email),
    field('Name', name),
    field('Password', password, {
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
      const user = await request(
        'POST',
        `${path}/signup`,
        { email: email.value.trim(), name: name.value.trim(), password: password.value },
        { token: null },
      )
      await done(user.email ?? email.value.trim())
    } catch (error) {
      replace(message, passwordErrors(error))
    } finally {
      submit.disabled = false
    }
  })
  replace(main, form)
  email.focus()
}
