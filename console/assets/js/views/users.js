// @ts-check
/**
 * People (ADMIN only): list, create (without a password: an invite link to hand over, and emailed
 * too when Pennon has an SMTP server), change a root role (confirmed first: it ends the user's sessions), make a
 * password-reset link, delete. The server refuses (409) taking the last Admin away; its message is
 * shown as it says.
 */
import { api, ApiError, signedOut } from '../api.js'
import { announce, confirmDialog, field, formatDate, h, replace, showFieldErrors } from '../dom.js'
import { navigate } from '../router.js'
import { can, session } from '../session.js'
import { errorBox, guard, loading, pageHeader, runAction, secretPanel, section } from '../ui.js'

/** @typedef {{ id: number, name: string | null, username: string | null, email: string | null, rootRole: number, seenAt: string | null, createdAt: string }} User */
/** @typedef {{ id: number, name: string, description: string }} RootRole */

/** @param {User} user */
const loginOf = (user) => user.email ?? user.username ?? `#${user.id}`

/** Whether a user is the person signed in here (a session or their personal access token). @param {User} user */
const isMe = (user) => session.me?.kind === 'user' && session.me.id === user.id

const ADMIN_ROLE = 1

/** @param {import('../router.js').ViewContext} context */
export async function usersView(context) {
  const { main, current } = context
  replace(main, pageHeader('Users'), loading())
  if (!can('ADMIN')) {
    replace(
      main,
      pageHeader('Users'),
      h('p', { class: 'alert warn' }, 'Listing, inviting and changing users needs ADMIN.'),
      section('New user', guard(h('button', { type: 'button', class: 'primary' }, 'Create user'), 'ADMIN')),
    )
    return
  }
  /** @type {{ users: User[], rootRoles: RootRole[] }} */
  let loaded
  try {
    loaded = await api('GET', '/user-admin')
  } catch (error) {
    if (current()) replace(main, pageHeader('Users'), errorBox(error))
    return
  }
  if (!current()) return
  const { users, rootRoles } = loaded
  const errors = h('div')
  const linkSlot = h('div', { 'aria-live': 'polite', 'data-link-slot': '' })
  const reload = () => usersView(context)

  /** Shows a link to hand over, on the page the reload drew. @param {string} url @param {string} what @param {string} note */
  const showLink = (url, what, note) => {
    const slot = main.querySelector('[data-link-slot]') ?? linkSlot
    replace(slot, h('h2', null, what), secretPanel(url, { label: 'Link', note }))
    slot.querySelector('input')?.focus()
  }

  const table = h(
    'table',
    { class: 'table' },
    h('caption', { class: 'visually-hidden' }, 'Users'),
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        ['User', 'Name', 'Root role', 'Last seen', 'Created', 'Actions'].map((title) => h('th', { scope: 'col' }, title)),
      ),
    ),
    h(
      'tbody',
      null,
      users.length === 0
        ? h('tr', null, h('td', { colspan: 6, class: 'empty' }, 'No users yet.'))
        : users.map((user) =>
            h(
              'tr',
              { 'data-user': loginOf(user) },
              h('th', { scope: 'row' }, loginOf(user), isMe(user) ? h('span', { class: 'hint' }, ' (you)') : null),
              h('td', null, user.name ?? ''),
              h('td', null, roleSelect(user)),
              h('td', null, user.seenAt ? formatDate(user.seenAt) : 'never'),
              h('td', null, formatDate(user.createdAt)),
              h(
                'td',
                { class: 'row-actions' },
                h(
                  'button',
                  {
                    type: 'button',
                    class: 'secondary small',
                    'aria-label': `Reset link for ${loginOf(user)}`,
                    onclick: () => resetLink(user),
                  },
                  'Reset link',
                ),
                h(
                  'button',
                  { type: 'button', class: 'danger small', 'aria-label': `Delete user ${loginOf(user)}`, onclick: () => remove(user) },
                  'Delete',
                ),
              ),
            ),
          ),
    ),
  )

  replace(
    main,
    pageHeader('Users', {
      subtitle:
        'People sign in with their email (or username) and password. Invite and reset links are shown here, to hand over; with an SMTP server set up (EMAIL_HOST), Pennon emails them too.',
    }),
    errors,
    linkSlot,
    section('Users', table),
    section('New user', createForm()),
  )

  /** @param {User} user */
  function roleSelect(user) {
    const select = h(
      'select',
      { 'aria-label': `Root role of ${loginOf(user)}` },
      rootRoles.map((role) => h('option', { value: String(role.id), selected: role.id === user.rootRole }, role.name)),
    )
    select.addEventListener('change', async () => {
      const role = rootRoles.find((candidate) => String(candidate.id) === select.value)
      // A role change ends the user's sessions, yours too: asked first, as a deletion is.
      if (!role || !(await confirmRoleChange(user, role))) {
        select.value = String(user.rootRole)
        return
      }
      select.disabled = true
      try {
        await api('PUT', `/user-admin/${user.id}`, { rootRole: role.id })
        user.rootRole = role.id
        if (isMe(user) && session.me?.session) {
          // This tab's session ended with the change: say so on the sign-in page.
          signedOut(
            `Your root role is now ${role.name}, and a role change ends your sessions: sign in again to go on as ${role.name}.`,
            loginOf(user),
          )
          return
        }
        replace(errors)
        announce(`${loginOf(user)} is now ${role.name}; their sessions ended.`)
        if (isMe(user)) {
          // A personal access token acts with the new role at once: redraw the console with it.
          session.me = await api('GET', '/me')
          navigate(location.hash)
        }
      } catch (error) {
        select.value = String(user.rootRole)
        replace(errors, errorBox(error))
      } finally {
        select.disabled = false
      }
    })
    return select
  }

  /** @param {User} user @param {RootRole} role */
  function confirmRoleChange(user, role) {
    const losesAdmin = user.rootRole === ADMIN_ROLE && role.id !== ADMIN_ROLE
    const body = isMe(user)
      ? h(
          'div',
          null,
          h('p', null, `${role.name}: ${role.description}`),
          h(
            'p',
            { class: 'alert warn' },
            session.me?.session
              ? `This is you: you will be signed out at once, and sign in again as ${role.name}.`
              : `This is you: the personal access token this console uses acts as ${role.name} from now on.`,
            losesAdmin ? ' Only another admin can make you Admin again.' : '',
          ),
        )
      : h(
          'div',
          null,
          h('p', null, `${role.name}: ${role.description}`),
          h(
            'p',
            null,
            `Their sessions end at once: they sign in again as ${role.name}. Their personal access tokens act as ${role.name} from now on.`,
          ),
        )
    return confirmDialog({
      title: isMe(user) ? `Change your own root role to ${role.name}?` : `Change the root role of ${loginOf(user)} to ${role.name}?`,
      body,
      confirm: 'Change root role',
      danger: isMe(user),
    })
  }

  /** @param {User} user */
  async function resetLink(user) {
    try {
      const { resetPasswordUrl } = await api('POST', '/user-admin/reset-password', { id: user.id })
      replace(errors)
      showLink(
        resetPasswordUrl,
        `Password reset link for ${loginOf(user)}`,
        `Hand this link to ${loginOf(user)} (with an SMTP server set up, it was emailed to them too). It sets a new password once, within a day; their current password works until then.`,
      )
    } catch (error) {
      replace(errors, errorBox(error))
    }
  }

  /** @param {User} user */
  async function remove(user) {
    const body = h(
      'div',
      null,
      h('p', null, 'Their sessions and personal access tokens stop working at once.'),
      isMe(user) ? h('p', { class: 'alert warn' }, 'This is you: once deleted, the console signs you out.') : null,
    )
    if (await confirmDialog({ title: `Delete ${loginOf(user)}?`, body, confirm: 'Delete user', danger: true })) {
      await runAction(errors, reload, () => api('DELETE', `/user-admin/${user.id}`), `User ${loginOf(user)} deleted.`)
    }
  }

  function createForm() {
    const email = h('input', { type: 'email', name: 'email', required: true, autocomplete: 'off', spellcheck: 'false' })
    const name = h('input', { type: 'text', name: 'name', autocomplete: 'off' })
    const role = h(
      'select',
      { name: 'rootRole' },
      rootRoles.map((candidate) => h('option', { value: String(candidate.id), selected: candidate.name === 'Viewer' }, candidate.name)),
    )
    const password = h('input', { type: 'password', name: 'password', autocomplete: 'new-password' })
    const general = h('div')
    const form = h(
      'form',
      { class: 'form-grid', novalidate: true },
      field('Email', email, { path: '/body/email' }),
      field('Name', name, { path: '/body/name' }),
      field('Root role', role, {
        path: '/body/rootRole',
        hint: 'Viewer: read only; Editor: flags, strategies, segments, projects; Admin: everything',
      }),
      field('Password (optional)', password, { path: '/body/password', hint: 'Leave empty to get an invite link: they choose their own.' }),
      general,
      h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Create user')),
    )
    form.addEventListener('submit', async (event) => {
      event.preventDefault()
      try {
        const created = await api('POST', '/user-admin', {
          email: email.value.trim(),
          ...(name.value.trim() ? { name: name.value.trim() } : {}),
          rootRole: Number(role.value),
          ...(password.value ? { password: password.value } : {}),
        })
        announce(`User ${loginOf(created)} created.`)
        await reload()
        if (created.inviteLink) {
          showLink(
            created.inviteLink,
            `Invite link for ${loginOf(created)}`,
            created.emailSent
              ? `An email with this link went to ${loginOf(created)}; you may also hand it over. It lets them set their password once, within 7 days.`
              : `No email is sent: copy this link and hand it to ${loginOf(created)}. It lets them set their password once, within 7 days.`,
          )
        }
      } catch (error) {
        const details = error instanceof ApiError ? error.details : [{ message: String(error) }]
        // A weak password: every rule it breaks, beside the field.
        const rules = details[0]?.validationErrors
        showFieldErrors(form, rules ? [{ path: '/body/password', message: rules.join(' ') }] : details, general)
      }
    })
    return form
  }
}
