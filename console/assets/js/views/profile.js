// @ts-check
/**
 * The signed-in person's own page: their root role, their password, and their personal access
 * tokens (each acts as them, with their root role, until it expires; the secret is shown once).
 */
import { api, ApiError } from '../api.js'
import { announce, confirmDialog, field, formatDate, h, replace, showFieldErrors } from '../dom.js'
import { session } from '../session.js'
import { errorBox, loading, pageHeader, runAction, secretPanel, section } from '../ui.js'
import { PASSWORD_HINT, passwordErrors } from './reset-password.js'

/** @typedef {{ id: number, description: string, expiresAt: string, createdAt: string, seenAt: string | null }} PersonalToken */

/** `YYYY-MM-DD` of a day `days` from today. @param {number} days */
const dayFromNow = (days) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10)

/** @param {import('../router.js').ViewContext} context */
export async function profileView(context) {
  const { main, current } = context
  const title = session.me?.name ?? 'Profile'
  replace(main, pageHeader(title), loading())
  if (session.me?.kind !== 'user') {
    replace(
      main,
      pageHeader('Profile'),
      h('p', { class: 'alert info' }, 'You are signed in with a token: profiles, passwords and personal access tokens are for people.'),
    )
    return
  }
  /** @type {[{ user: { name: string | null, email: string | null, username: string | null, seenAt: string | null } }, { rootRole: { name: string, description: string } }, { pats: PersonalToken[] }]} */
  let loaded
  try {
    loaded = await Promise.all([api('GET', '/user'), api('GET', '/user/profile'), api('GET', '/user/tokens')])
  } catch (error) {
    if (current()) replace(main, pageHeader(title), errorBox(error))
    return
  }
  if (!current()) return
  const [{ user }, { rootRole }, { pats }] = loaded
  const errors = h('div')
  const secretSlot = h('div', { 'aria-live': 'polite', 'data-secret-slot': '' })
  const reload = () => profileView(context)

  const tokens = h(
    'table',
    { class: 'table' },
    h('caption', { class: 'visually-hidden' }, 'Personal access tokens'),
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        ['Description', 'Expires', 'Created', 'Last used', 'Actions'].map((heading) => h('th', { scope: 'col' }, heading)),
      ),
    ),
    h(
      'tbody',
      null,
      pats.length === 0
        ? h('tr', null, h('td', { colspan: 5, class: 'empty' }, 'No personal access tokens.'))
        : pats.map((token) =>
            h(
              'tr',
              null,
              h('th', { scope: 'row' }, token.description),
              h('td', null, formatDate(token.expiresAt)),
              h('td', null, formatDate(token.createdAt)),
              h('td', null, token.seenAt ? formatDate(token.seenAt) : 'never'),
              h(
                'td',
                null,
                h(
                  'button',
                  {
                    type: 'button',
                    class: 'danger small',
                    'aria-label': `Delete personal access token ${token.description}`,
                    onclick: async () => {
                      const sure = await confirmDialog({
                        title: `Delete ${token.description}?`,
                        body: 'Whatever uses this token is refused at once.',
                        confirm: 'Delete token',
                        danger: true,
                      })
                      if (sure)
                        await runAction(
                          errors,
                          reload,
                          () => api('DELETE', `/user/tokens/${token.id}`),
                          `Personal access token ${token.description} deleted.`,
                        )
                    },
                  },
                  'Delete',
                ),
              ),
            ),
          ),
    ),
  )

  replace(
    main,
    pageHeader(title, { subtitle: user.name && user.name !== title ? user.name : undefined }),
    errors,
    section(
      'Root role',
      h(
        'dl',
        { class: 'facts' },
        h('dt', null, 'Root role'),
        h('dd', null, h('span', { class: `badge role-${rootRole.name.toLowerCase()}` }, rootRole.name), ' ', rootRole.description),
        h('dt', null, 'Last sign-in'),
        h('dd', null, user.seenAt ? formatDate(user.seenAt) : 'never'),
      ),
      h('p', { class: 'hint' }, 'Only an admin can change it.'),
    ),
    section('Change password', passwordForm()),
    section(
      'Personal access tokens',
      h('p', null, 'For scripts: a token acts as you, with your root role, until it expires. Send it as the Authorization header.'),
      secretSlot,
      tokens,
      h('h3', null, 'New personal access token'),
      tokenForm(),
    ),
  )

  function passwordForm() {
    const old = h('input', { type: 'password', name: 'oldPassword', autocomplete: 'current-password' })
    const password = h('input', { type: 'password', name: 'password', autocomplete: 'new-password' })
    const again = h('input', { type: 'password', name: 'confirmPassword', autocomplete: 'new-password' })
    const general = h('div', { 'aria-live': 'polite' })
    const form = h(
      'form',
      { class: 'form-grid', novalidate: true },
      field('Current password', old, { path: '/body/oldPassword' }),
      field('New password', password, {
        path: '/body/password',
        hint: PASSWORD_HINT,
      }),
      field('Repeat the new password', again, { path: '/body/confirmPassword' }),
      general,
      h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Change password')),
    )
    form.addEventListener('submit', async (event) => {
      event.preventDefault()
      try {
        await api(
          'POST',
          '/user/change-password',
          { oldPassword: old.value, password: password.value, confirmPassword: again.value },
          { wrongPasswordIs401: true },
        )
        form.reset()
        replace(general, h('p', { class: 'alert success', role: 'status' }, 'Your password is changed. Your other sessions have ended.'))
      } catch (error) {
        const rules = error instanceof ApiError && error.details[0]?.validationErrors
        if (rules) {
          showFieldErrors(form, [], general)
          replace(general, passwordErrors(error))
        } else {
          showFieldErrors(form, error instanceof ApiError ? error.details : [{ message: String(error) }], general)
        }
      }
    })
    return form
  }

  function tokenForm() {
    const description = h('input', { type: 'text', name: 'description', required: true, autocomplete: 'off' })
    const expires = h('input', { type: 'date', name: 'expiresAt', required: true, value: dayFromNow(30), min: dayFromNow(1) })
    const general = h('div')
    const form = h(
      'form',
      { class: 'form-grid', novalidate: true },
      field('Description', description, { path: '/body/description' }),
      field('Expires', expires, { path: '/body/expiresAt', hint: 'At the end of that day (UTC).' }),
      general,
      h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Create token')),
    )
    form.addEventListener('submit', async (event) => {
      event.preventDefault()
      try {
        const expiresAt = expires.value ? new Date(`${expires.value}T23:59:59.000Z`).toISOString() : ''
        const created = await api('POST', '/user/tokens', { description: description.value.trim(), expiresAt })
        announce(`Personal access token ${created.description} created.`)
        await reload()
        const slot = main.querySelector('[data-secret-slot]')
        if (slot) {
          replace(slot, h('h3', null, `Token ${created.description}`), secretPanel(created.secret))
          slot.querySelector('input')?.focus()
        }
      } catch (error) {
        showFieldErrors(form, error instanceof ApiError ? error.details : [{ message: String(error) }], general)
      }
    })
    return form
  }
}
