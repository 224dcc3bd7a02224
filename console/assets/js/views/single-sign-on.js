// @ts-check
/**
 * Single sign-on (ADMIN only): the OpenID Connect settings, a "Test the connection" step (discovery
 * reached, client accepted: POST /auth/oidc/test, which stores nothing), and the switch that turns
 * password sign-in off. The secret is write-only: the API never answers it, and an empty field
 * keeps the stored one. The server's refusals are shown as it words them: beside the field they
 * name. When OIDC_* variables set the settings, the form is read-only from the start (the settings
 * say `setByEnvironment`), and a 409 on saving makes it so too.
 */
import { api, ApiError } from '../api.js'
import { announce, clearFieldErrors, field, h, replace, showFieldErrors } from '../dom.js'
import { can } from '../session.js'
import { errorBox, loading, pageHeader, section, toggleSwitch } from '../ui.js'

/**
 * @typedef {{ enabled: boolean, discoverUrl: string, clientId: string, autoCreate: boolean, defaultRootRole: string,
 *   emailDomains: string, enableSingleSignOut: boolean, acrValues: string, idTokenSigningAlgorithm: string,
 *   addGroupsScope: boolean, groupJsonPath: string, rootRoleGroups: Record<'Admin' | 'Editor' | 'Viewer', string[]>, setByEnvironment?: boolean }} OidcSettings
 */
/** @typedef {{ ok: boolean, issuer?: string, message?: string }} Check */

const ROLES = /** @type {const} */ (['Admin', 'Editor', 'Viewer'])
const TITLE = 'Single sign-on'

/** @param {import('../router.js').ViewContext} context */
export async function singleSignOnView(context) {
  const { main, current } = context
  replace(main, pageHeader(TITLE), loading())
  if (!can('ADMIN')) {
    replace(
      main,
      pageHeader(TITLE),
      h('p', { class: 'alert warn' }, 'Single sign-on settings (OpenID Connect, and whether passwords may sign in) need ADMIN.'),
    )
    return
  }
  /** @type {[OidcSettings, { disabled: boolean }]} */
  let loaded
  try {
    loaded = await Promise.all([api('GET', '/auth/oidc/settings'), api('GET', '/auth/simple/settings')])
  } catch (error) {
    if (current()) replace(main, pageHeader(TITLE), errorBox(error))
    return
  }
  if (!current()) return
  const [settings, password] = loaded
  replace(
    main,
    pageHeader(TITLE, {
      subtitle: 'People sign in at your OpenID Connect provider (Okta, Entra ID, Keycloak, Google…) instead of with a password.',
    }),
    settingsForm(settings, () => singleSignOnView(context)),
    passwordSection(password.disabled, () => singleSignOnView(context)),
  )
}

/** @param {boolean} checked @param {string} name */
const checkbox = (checked, name) => h('input', { type: 'checkbox', name, checked })

/** A checkbox with its label, placed for the server's errors as field() places them. @param {HTMLInputElement} box @param {string} label @param {string} [hint] */
const checkField = (box, label, hint) =>
  h(
    'div',
    { class: 'field', 'data-path': `/body/${box.name}` },
    h('label', { class: 'check' }, box, ` ${label}`),
    hint ? h('p', { class: 'hint' }, hint) : null,
    h('p', { class: 'field-error', hidden: true }),
  )

/** @param {string} name @param {string} value @param {Record<string, unknown>} [attrs] */
const text = (name, value, attrs = {}) => h('input', { type: 'text', name, value, spellcheck: 'false', autocomplete: 'off', ...attrs })

/** @param {string} name @param {readonly string[]} options @param {string} value */
const select = (name, options, value) =>
  h(
    'select',
    { name },
    options.map((option) => h('option', { value: option, selected: option === value }, option)),
  )

/** "a, b" → ["a", "b"]. @param {string} value */
const listOf = (value) =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')

/** @param {OidcSettings} settings @param {() => Promise<void>} reload */
function settingsForm(settings, reload) {
  const enabled = checkbox(settings.enabled, 'enabled')
  const discoverUrl = text('discoverUrl', settings.discoverUrl, { type: 'url', placeholder: 'https://login.example.com' })
  const clientId = text('clientId', settings.clientId)
  const secret = h('input', { type: 'password', name: 'secret', autocomplete: 'new-password', value: '' })
  const autoCreate = checkbox(settings.autoCreate, 'autoCreate')
  const defaultRootRole = select('defaultRootRole', ROLES, settings.defaultRootRole)
  const emailDomains = text('emailDomains', settings.emailDomains, { placeholder: 'example.com, example.org' })
  const singleSignOut = checkbox(settings.enableSingleSignOut, 'enableSingleSignOut')
  const acrValues = text('acrValues', settings.acrValues)
  const algorithm = select('idTokenSigningAlgorithm', ['RS256', 'RS384', 'RS512'], settings.idTokenSigningAlgorithm)
  const groupsScope = checkbox(settings.addGroupsScope, 'addGroupsScope')
  const groupJsonPath = text('groupJsonPath', settings.groupJsonPath, { placeholder: 'groups' })
  const groups = Object.fromEntries(ROLES.map((role) => [role, text(`rootRoleGroups.${role}`, settings.rootRoleGroups[role].join(', '))]))
  const general = h('div', { 'aria-live': 'polite' })
  const result = h('div', { 'aria-live': 'polite', 'data-connection-test': '' })
  const save = h('button', { type: 'submit', class: 'primary' }, 'Save')
  const test = h('button', { type: 'button', class: 'secondary' }, 'Test the connection')

  const form = h(
    'form',
    { novalidate: true, 'aria-label': 'OpenID Connect settings' },
    checkField(enabled, 'Enable sign-in with OpenID Connect', 'The sign-in page then shows a "Sign in with OpenID Connect" button.'),
    field('Discovery URL', discoverUrl, {
      path: '/body/discoverUrl',
      hint: "The provider's issuer, or its /.well-known/openid-configuration. https, or http on this machine (127.0.0.1, ::1, localhost).",
    }),
    field('Client ID', clientId, {
      path: '/body/clientId',
      hint: "Pennon's client at the provider; its redirect URI is this Pennon's /auth/oidc/callback.",
    }),
    field('Client secret', secret, {
      path: '/body/secret',
      hint: 'Never shown once saved. Leave empty to keep the stored secret; type one to replace it.',
    }),
    result,
    h('div', { class: 'actions' }, test),
    h('h3', null, 'People'),
    checkField(autoCreate, 'Create a user on first sign-in', 'Otherwise only people who have a user already may sign in.'),
    field('Root role of created users', defaultRootRole, { path: '/body/defaultRootRole' }),
    field('Email domains', emailDomains, {
      path: '/body/emailDomains',
      hint: 'Comma-separated; users are created only for these (empty: any).',
    }),
    h('h3', null, 'Groups'),
    checkField(groupsScope, 'Ask for the groups scope'),
    field('Groups claim', groupJsonPath, {
      path: '/body/groupJsonPath',
      hint: 'Where the groups are in the claims (groups, or a dotted path such as realm_access.roles); empty: groups are not read.',
    }),
    ROLES.map((role) =>
      field(`Groups that give ${role}`, groups[role], { path: `/body/rootRoleGroups/${role}`, hint: 'Comma-separated group names.' }),
    ),
    h('h3', null, 'Advanced'),
    checkField(singleSignOut, 'Single sign-out', 'Signing out of Pennon signs out at the provider too (its end-session page).'),
    field('ACR values', acrValues, { path: '/body/acrValues', hint: 'Space-separated; asked for as acr_values.' }),
    field('ID token signing algorithm', algorithm, { path: '/body/idTokenSigningAlgorithm' }),
    general,
    h('div', { class: 'actions' }, save),
  )

  // A field changed: its error (from the last save) no longer applies.
  form.addEventListener('input', (event) => {
    const changed = event.target instanceof Element ? event.target.closest('.field') : null
    const error = changed?.querySelector(':scope > .field-error')
    if (error instanceof HTMLElement) error.hidden = true
    changed?.querySelector('[aria-invalid]')?.removeAttribute('aria-invalid')
  })

  /** Read-only, saying why (OIDC_* variables set the settings). @param {string} why */
  function readOnly(why) {
    for (const control of form.querySelectorAll('input, select')) control.setAttribute('disabled', '')
    save.disabled = true
    replace(
      general,
      h(
        'p',
        { class: 'alert warn', role: 'alert' },
        why,
        ' The form is read-only; "Test the connection" still tries the settings in force.',
      ),
    )
  }
  if (settings.setByEnvironment) readOnly('OpenID Connect is set by the environment (OIDC_DISCOVER_URL and the rest): change it there.')

  test.addEventListener('click', async () => {
    test.disabled = true
    replace(result, h('p', { role: 'status' }, 'Testing…'))
    try {
      // The form's values; an empty secret (or a read-only form) tries the stored one.
      const body = form.querySelector('input:disabled')
        ? {}
        : { discoverUrl: discoverUrl.value.trim(), clientId: clientId.value.trim(), ...(secret.value ? { secret: secret.value } : {}) }
      /** @type {{ discovery: Check, client: Check }} */
      const { discovery, client } = await api('POST', '/auth/oidc/test', body)
      replace(
        result,
        h(
          'ul',
          { class: 'checks' },
          h(
            'li',
            { 'data-check': 'discovery', 'data-ok': String(discovery.ok) },
            discovery.ok ? `✓ Discovery: reached, issuer ${discovery.issuer}` : `✗ Discovery failed: ${discovery.message}`,
          ),
          h(
            'li',
            { 'data-check': 'client', 'data-ok': String(client.ok) },
            client.ok ? '✓ Client: the provider accepted the client ID and secret' : `✗ Client: ${client.message}`,
          ),
        ),
      )
    } catch (error) {
      replace(result, errorBox(error))
    } finally {
      test.disabled = false
    }
  })

  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    clearFieldErrors(form)
    replace(general)
    save.disabled = true
    try {
      await api('POST', '/auth/oidc/settings', {
        enabled: enabled.checked,
        discoverUrl: discoverUrl.value.trim(),
        clientId: clientId.value.trim(),
        ...(secret.value ? { secret: secret.value } : {}),
        autoCreate: autoCreate.checked,
        defaultRootRole: defaultRootRole.value,
        emailDomains: emailDomains.value.trim(),
        enableSingleSignOut: singleSignOut.checked,
        acrValues: acrValues.value.trim(),
        idTokenSigningAlgorithm: algorithm.value,
        addGroupsScope: groupsScope.checked,
        groupJsonPath: groupJsonPath.value.trim(),
        rootRoleGroups: Object.fromEntries(ROLES.map((role) => [role, listOf(groups[role]?.value ?? '')])),
      })
      announce('Single sign-on settings saved.')
      await reload()
    } catch (error) {
      save.disabled = false
      if (error instanceof ApiError && error.status === 409) readOnly(error.message)
      else showFieldErrors(form, error instanceof ApiError ? error.details : [{ message: String(error) }], general)
    }
  })
  return section('OpenID Connect', form)
}

/** @param {boolean} disabled @param {() => Promise<void>} reload */
function passwordSection(disabled, reload) {
  const notice = h('div', { 'aria-live': 'polite' })
  const toggle = toggleSwitch({
    label: 'Password sign-in',
    checked: !disabled,
    onchange: async (on) => {
      try {
        await api('POST', '/auth/simple/settings', { disabled: !on })
        announce(on ? 'Password sign-in is on.' : 'Password sign-in is off.')
        await reload()
      } catch (error) {
        replace(notice, errorBox(error))
      }
    },
  })
  return section(
    'Password sign-in',
    h(
      'p',
      null,
      'Turned off, the sign-in page offers only single sign-on. It can be off only while OpenID Connect sign-in is enabled; ' +
        'turning OpenID Connect off brings passwords back. API tokens work whatever this says.',
    ),
    h('div', { class: 'field' }, h('span', null, 'Password sign-in '), toggle),
    notice,
  )
}
