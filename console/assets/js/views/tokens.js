// @ts-check
/**
 * API tokens and service accounts: create (the secret shown once, with a copy button), list, delete.
 * All need ADMIN. A delete's confirmation says when it takes the caller's own credential or the
 * last one that can administer Pennon; the server has the last word (a 409 is shown as it says).
 */
import { api, ApiError, seg } from '../api.js'
import { announce, confirmDialog, field, formatDate, h, replace, showFieldErrors } from '../dom.js'
import { can, session } from '../session.js'
import { badge, errorBox, guard, loading, pageHeader, secretPanel, runAction, section } from '../ui.js'

const ROLES = /** @type {const} */ ([
  [1, 'Admin'],
  [2, 'Editor'],
  [3, 'Viewer'],
])

/** @typedef {{ tokenName: string, type: string, environment: string, projects: string[], expiresAt: string | null, createdAt: string }} ApiToken */
/** @typedef {{ id: number, username: string, name: string, rootRole: number, createdAt: string }} ServiceAccount */

/** Whether an API token can administer Pennon: an admin token not expired. @param {ApiToken} token */
const administers = (token) => token.type === 'admin' && (token.expiresAt === null || Date.parse(token.expiresAt) > Date.now())

/** ISO from a date input (end of that day, UTC), or null. @param {HTMLInputElement} input */
const expiry = (input) => (input.value ? new Date(`${input.value}T23:59:59.000Z`).toISOString() : null)

/** @param {import('../router.js').ViewContext} context */
export async function tokensView({ main, current }) {
  const secretSlot = h('div', { 'aria-live': 'polite', 'data-secret-slot': '' })
  replace(main, pageHeader('Tokens and service accounts'), loading())
  if (!can('ADMIN')) {
    replace(
      main,
      pageHeader('Tokens and service accounts'),
      h('p', { class: 'alert warn' }, 'Listing, creating and deleting tokens and service accounts needs ADMIN.'),
      section('New API token', guard(h('button', { type: 'button', class: 'primary' }, 'Create API token'), 'ADMIN')),
      section('New service account', guard(h('button', { type: 'button', class: 'primary' }, 'Create service account'), 'ADMIN')),
    )
    return
  }
  /** @type {[{ tokens: ApiToken[] }, { serviceAccounts: ServiceAccount[] }, { environments: { name: string }[] }, { projects: { id: string }[] }]} */
  let loaded
  try {
    loaded = await Promise.all([
      api('GET', '/api-tokens'),
      api('GET', '/service-account'),
      api('GET', '/environments'),
      api('GET', '/projects'),
    ])
  } catch (error) {
    if (current()) replace(main, pageHeader('Tokens and service accounts'), errorBox(error))
    return
  }
  if (!current()) return
  const [{ tokens }, { serviceAccounts }, { environments }, { projects }] = loaded
  const reload = () => tokensView({ main, current, params: {}, query: new URLSearchParams(), onLeave: () => {} })

  /** @param {string} secret @param {string} what */
  const showSecret = (secret, what) => {
    replace(secretSlot, h('h2', null, what), secretPanel(secret))
    secretSlot.scrollIntoView({ block: 'nearest' })
    const input = secretSlot.querySelector('input')
    if (input) input.focus()
  }

  const tokenTable = h(
    'table',
    { class: 'table' },
    h('caption', { class: 'visually-hidden' }, 'API tokens'),
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        ['Name', 'Type', 'Environment', 'Projects', 'Expires', 'Created', 'Actions'].map((title) => h('th', { scope: 'col' }, title)),
      ),
    ),
    h(
      'tbody',
      null,
      tokens.length === 0
        ? h('tr', null, h('td', { colspan: 7, class: 'empty' }, 'No API tokens.'))
        : tokens.map((token) =>
            h(
              'tr',
              null,
              h('th', { scope: 'row' }, token.tokenName),
              h('td', null, badge(token.type)),
              h('td', null, token.environment),
              h('td', null, token.projects.join(', ')),
              h('td', null, token.expiresAt ? formatDate(token.expiresAt) : 'never'),
              h('td', null, formatDate(token.createdAt)),
              h(
                'td',
                null,
                h(
                  'button',
                  {
                    type: 'button',
                    class: 'danger small',
                    'aria-label': `Delete API token ${token.tokenName}`,
                    onclick: async () => {
                      const body = h('div', null, h('p', null, 'Every token with this name stops working at once.'), tokenWarnings(token))
                      const sure = await confirmDialog({ title: `Delete ${token.tokenName}?`, body, confirm: 'Delete token', danger: true })
                      if (!sure) return
                      await run(() => api('DELETE', `/api-tokens/${seg(token.tokenName)}`), `API token ${token.tokenName} deleted.`)
                    },
                  },
                  'Delete',
                ),
              ),
            ),
          ),
    ),
  )

  const accountTable = h(
    'table',
    { class: 'table' },
    h('caption', { class: 'visually-hidden' }, 'Service accounts'),
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        ['Username', 'Name', 'Role', 'Created', 'Actions'].map((title) => h('th', { scope: 'col' }, title)),
      ),
    ),
    h(
      'tbody',
      null,
      serviceAccounts.length === 0
        ? h('tr', null, h('td', { colspan: 5, class: 'empty' }, 'No service accounts.'))
        : serviceAccounts.map((account) =>
            h(
              'tr',
              null,
              h('th', { scope: 'row' }, account.username),
              h('td', null, account.name),
              h('td', null, badge(ROLES.find(([id]) => id === account.rootRole)?.[1] ?? String(account.rootRole))),
              h('td', null, formatDate(account.createdAt)),
              h(
                'td',
                { class: 'row-actions' },
                h(
                  'button',
                  {
                    type: 'button',
                    class: 'secondary small',
                    'aria-label': `New token for ${account.username}`,
                    onclick: () => accountToken(account),
                  },
                  'New token',
                ),
                h(
                  'button',
                  {
                    type: 'button',
                    class: 'danger small',
                    'aria-label': `Delete service account ${account.username}`,
                    onclick: async () => {
                      const body = h('div', null, h('p', null, 'Its tokens stop working at once.'), accountWarnings(account))
                      const sure = await confirmDialog({
                        title: `Delete ${account.username}?`,
                        body,
                        confirm: 'Delete service account',
                        danger: true,
                      })
                      if (sure)
                        await run(() => api('DELETE', `/service-account/${account.id}`), `Service account ${account.username} deleted.`)
                    },
                  },
                  'Delete',
                ),
              ),
            ),
          ),
    ),
  )

  const errors = h('div')
  replace(
    main,
    pageHeader('Tokens and service accounts'),
    errors,
    secretSlot,
    section('API tokens', tokenTable, h('h3', null, 'New API token'), tokenForm()),
    section('Service accounts', accountTable, h('h3', null, 'New service account'), accountForm()),
  )

  /** What deleting these tokens would take away that the caller may not mean to. @param {ApiToken} token */
  function tokenWarnings(token) {
    const me = session.me
    const own = me?.kind === 'admin-token' && me.name === token.tokenName
    const others = tokens.filter((other) => administers(other) && other.tokenName !== token.tokenName)
    const adminAccounts = serviceAccounts.filter((account) => account.rootRole === 1)
    const last = administers(token) && others.length === 0
    return [
      own
        ? h('p', { class: 'alert warn' }, 'This is the token you are signed in with: once it is deleted, the console signs you out.')
        : null,
      last && adminAccounts.length === 0
        ? h(
            'p',
            { class: 'alert warn' },
            'This is the last admin token, and no Admin service account exists: Pennon refuses to delete the last credential that can administer it. Create another admin token first.',
          )
        : null,
      last && adminAccounts.length > 0
        ? h(
            'p',
            { class: 'alert warn' },
            `This is the last admin token: it can go only while an Admin service account (${adminAccounts.map((account) => account.username).join(', ')}) holds an unexpired token.`,
          )
        : null,
    ]
  }

  /** The same for a service account. @param {ServiceAccount} account */
  function accountWarnings(account) {
    const me = session.me
    const own = me?.kind === 'service-account' && me.name === account.username
    const last =
      account.rootRole === 1 &&
      !tokens.some(administers) &&
      !serviceAccounts.some((other) => other.rootRole === 1 && other.id !== account.id)
    return [
      own
        ? h(
            'p',
            { class: 'alert warn' },
            'This is the service account you are signed in as: once it is deleted, the console signs you out.',
          )
        : null,
      last
        ? h(
            'p',
            { class: 'alert warn' },
            'No admin token is left and this is the only Admin service account: if it holds an unexpired token, Pennon refuses to delete it. Create an admin token first.',
          )
        : null,
    ]
  }

  /** @param {() => Promise<unknown>} action @param {string} done */
  async function run(action, done) {
    await runAction(errors, reload, action, done)
  }

  function tokenForm() {
    const name = h('input', { type: 'text', name: 'tokenName', required: true, autocomplete: 'off' })
    const type = h(
      'select',
      { name: 'type' },
      ['client', 'frontend', 'admin'].map((value) => h('option', { value }, value)),
    )
    const environment = h(
      'select',
      { name: 'environment' },
      environments.map((env) => h('option', { value: env.name }, env.name)),
    )
    const project = h(
      'select',
      { name: 'projects' },
      h('option', { value: '*' }, 'All projects (*)'),
      projects.map((candidate) => h('option', { value: candidate.id }, candidate.id)),
    )
    const expires = h('input', { type: 'date', name: 'expiresAt' })
    const general = h('div')
    const scoped = [
      field('Environment', environment, { path: '/body/environment' }),
      field('Projects', project, { path: '/body/projects' }),
    ]
    type.addEventListener('change', () => {
      for (const element of scoped) element.hidden = type.value === 'admin'
    })
    const form = h(
      'form',
      { class: 'form-grid', novalidate: true },
      field('Name', name, { path: '/body/tokenName' }),
      field('Type', type, { path: '/body/type', hint: 'client: server SDKs; frontend: browsers and apps; admin: this API' }),
      scoped,
      field('Expires (optional)', expires, { path: '/body/expiresAt' }),
      general,
      h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Create API token')),
    )
    form.addEventListener('submit', async (event) => {
      event.preventDefault()
      const admin = type.value === 'admin'
      try {
        const created = await api('POST', '/api-tokens', {
          tokenName: name.value.trim(),
          type: type.value,
          ...(admin ? {} : { environment: environment.value, projects: [project.value] }),
          expiresAt: expiry(expires),
        })
        await reload()
        showSecretAfterReload(created.secret, `API token ${created.tokenName}`)
      } catch (error) {
        showFieldErrors(form, error instanceof ApiError ? error.details : [{ message: String(error) }], general)
      }
    })
    return form
  }

  function accountForm() {
    const username = h('input', { type: 'text', name: 'username', required: true, autocomplete: 'off' })
    const name = h('input', { type: 'text', name: 'name', required: true, autocomplete: 'off' })
    const role = h(
      'select',
      { name: 'rootRole' },
      ROLES.map(([id, label]) => h('option', { value: String(id), selected: id === 3 }, label)),
    )
    const general = h('div')
    const form = h(
      'form',
      { class: 'form-grid', novalidate: true },
      field('Username', username, { path: '/body/username' }),
      field('Display name', name, { path: '/body/name' }),
      field('Root role', role, {
        path: '/body/rootRole',
        hint: 'Viewer: read only; Editor: flags, strategies, segments, projects; Admin: everything',
      }),
      general,
      h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Create service account')),
    )
    form.addEventListener('submit', async (event) => {
      event.preventDefault()
      try {
        await api('POST', '/service-account', { username: username.value.trim(), name: name.value.trim(), rootRole: Number(role.value) })
        announce(`Service account ${username.value} created. Give it a token with “New token”.`)
        await reload()
      } catch (error) {
        showFieldErrors(form, error instanceof ApiError ? error.details : [{ message: String(error) }], general)
      }
    })
    return form
  }

  /** @param {ServiceAccount} account */
  async function accountToken(account) {
    const description = h('input', { type: 'text', name: 'description', value: 'console', autocomplete: 'off' })
    const expires = h('input', { type: 'date', name: 'expiresAt' })
    const sure = await confirmDialog({
      title: `New token for ${account.username}`,
      body: h('div', null, field('Description', description), field('Expires (optional)', expires)),
      confirm: 'Create token',
    })
    if (!sure) return
    try {
      const created = await api('POST', `/service-account/${account.id}/token`, {
        description: description.value,
        expiresAt: expiry(expires),
      })
      await reload()
      showSecretAfterReload(created.secret, `Token of ${account.username}`)
    } catch (error) {
      replace(errors, errorBox(error))
    }
  }

  /** The reload replaced this page: show the secret on the new one. @param {string} secret @param {string} what */
  function showSecretAfterReload(secret, what) {
    const slot = main.querySelector('[data-secret-slot]')
    if (slot instanceof HTMLElement) {
      replace(slot, h('h2', null, what), secretPanel(secret))
      const input = slot.querySelector('input')
      if (input) input.focus()
    } else {
      showSecret(secret, what)
    }
  }
}
