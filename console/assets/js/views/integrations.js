// @ts-check
/**
 * Integrations (Unleash's addons): the list with an on/off switch each, the providers to add one
 * of, and a page to add or change one with a form generated from its provider's parameters.
 */
import { api, ApiError } from '../api.js'
import { announce, clearFieldErrors, confirmDialog, h, replace, showFieldErrors } from '../dom.js'
import { integrationFields, integrationName, takesAll } from '../integration-form.js'
import { link, navigate } from '../router.js'
import { can } from '../session.js'
import { errorBox, guard, loading, pageHeader, runAction, section, toggleSwitch } from '../ui.js'

/** @typedef {import('../integration-form.js').Addon} Addon */
/** @typedef {import('../integration-form.js').Provider} Provider */

const SUBTITLE = 'Other systems told about changes: each integration is sent the events it takes, at least once and in order.'

/** @param {import('../router.js').ViewContext} context */
export async function integrationsView({ main, current }) {
  const notice = h('div', { 'aria-live': 'polite' })
  const results = h('div', null, loading())
  const available = h('div')
  replace(
    main,
    pageHeader('Integrations', { subtitle: SUBTITLE }),
    notice,
    section('Configured', results),
    section('Add an integration', available),
  )

  async function load() {
    /** @type {{ addons: Addon[], providers: Provider[] }} */
    let answer
    try {
      answer = await api('GET', '/addons')
    } catch (error) {
      if (current()) replace(results, errorBox(error))
      return
    }
    if (!current()) return
    replace(results, answer.addons.length === 0 ? h('p', { class: 'empty' }, 'No integrations yet.') : table(answer))
    replace(available, providerList(answer.providers))
  }

  /** @param {{ addons: Addon[], providers: Provider[] }} answer */
  function table({ addons, providers }) {
    /** @param {string[]} names */
    const filter = (names) => (takesAll(names) ? h('span', { class: 'hint' }, 'all') : names.join(', '))
    return h(
      'table',
      { class: 'table' },
      h('caption', { class: 'visually-hidden' }, 'Integrations'),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          ['Integration', 'Enabled', 'Events', 'Projects', 'Environments', 'Actions'].map((title) => h('th', { scope: 'col' }, title)),
        ),
      ),
      h(
        'tbody',
        null,
        addons.map((addon) => {
          const name = integrationName(
            addon,
            providers.find((provider) => provider.name === addon.provider),
          )
          return h(
            'tr',
            { 'data-integration': String(addon.id) },
            h(
              'th',
              { scope: 'row' },
              h('a', { href: link('integrations', String(addon.id)) }, name),
              addon.description ? h('p', { class: 'hint' }, addon.description) : null,
            ),
            h('td', null, guard(enabledSwitch(addon, name), 'UPDATE_ADDON')),
            h(
              'td',
              null,
              addon.events.length === 0
                ? h('span', { class: 'hint' }, 'none')
                : h(
                    'ul',
                    { class: 'plain' },
                    addon.events.map((event) => h('li', null, h('code', null, event))),
                  ),
            ),
            h('td', null, filter(addon.projects)),
            h('td', null, filter(addon.environments)),
            h(
              'td',
              null,
              h(
                'span',
                { class: 'row-actions' },
                h(
                  'a',
                  { class: 'button secondary small', href: link('integrations', String(addon.id)), 'aria-label': `Edit ${name}` },
                  'Edit',
                ),
                deliveryLogLink(addon, name),
                guard(
                  h(
                    'button',
                    { type: 'button', class: 'link danger', 'aria-label': `Delete ${name}`, onclick: () => remove(addon, name) },
                    'Delete',
                  ),
                  'DELETE_ADDON',
                ),
              ),
            ),
          )
        }),
      ),
    )
  }

  /** A PUT of the integration as shown, but for `enabled`: its `*****` secrets are kept. @param {Addon} addon @param {string} name */
  function enabledSwitch(addon, name) {
    return toggleSwitch({
      label: `${name} enabled`,
      checked: addon.enabled,
      onchange: (next) =>
        runAction(
          notice,
          load,
          () =>
            api('PUT', `/addons/${addon.id}`, {
              provider: addon.provider,
              description: addon.description,
              enabled: next,
              parameters: addon.parameters,
              events: addon.events,
              projects: addon.projects,
              environments: addon.environments,
            }),
          `${name} ${next ? 'enabled' : 'disabled'}.`,
        ),
    })
  }

  /** @param {Addon} addon @param {string} name */
  async function remove(addon, name) {
    const sure = await confirmDialog({
      title: `Delete ${name}?`,
      body: 'It is sent no more events, and it cannot be brought back.',
      confirm: 'Delete integration',
      danger: true,
    })
    if (sure) await runAction(notice, load, () => api('DELETE', `/addons/${addon.id}`), `${name} deleted.`)
  }

  await load()
}

/** @param {Provider[]} providers */
function providerList(providers) {
  return h(
    'ul',
    { class: 'plain providers' },
    providers.map((provider) =>
      h(
        'li',
        { 'data-provider': provider.name },
        h('h3', null, provider.displayName),
        h('p', null, provider.description),
        can('CREATE_ADDON')
          ? h(
              'a',
              {
                class: 'button primary small',
                href: link('integrations', 'new', provider.name),
                'aria-label': `Add ${provider.displayName}`,
              },
              'Add',
            )
          : guard(h('button', { type: 'button', class: 'primary small' }, 'Add'), 'CREATE_ADDON'),
      ),
    ),
  )
}

/** Admins only read the log: anyone else sees the link disabled, naming ADMIN. @param {Addon} addon @param {string} name */
export function deliveryLogLink(addon, name) {
  const label = `Delivery log of ${name}`
  return can('ADMIN')
    ? h(
        'a',
        { class: 'button secondary small', href: link('integrations', String(addon.id), 'deliveries'), 'aria-label': label },
        'Delivery log',
      )
    : guard(h('button', { type: 'button', class: 'secondary small', 'aria-label': label }, 'Delivery log'), 'ADMIN')
}

/** Adds (`#/integrations/new/:provider`) or changes (`#/integrations/:id`) one integration. @param {import('../router.js').ViewContext} context */
export async function integrationEditView({ main, params, current }) {
  const crumbs = /** @type {[string, string][]} */ ([['Integrations', '#/integrations']])
  const title = params.id ? 'Integration' : 'New integration'
  replace(main, pageHeader(title, { crumbs }), loading())
  /** @type {[{ addons: Addon[], providers: Provider[] }, Addon | undefined, { projects: { id: string }[] }, { environments: { name: string }[] }]} */
  let loaded
  try {
    loaded = await Promise.all([
      api('GET', '/addons'),
      params.id ? api('GET', `/addons/${encodeURIComponent(params.id)}`) : undefined,
      api('GET', '/projects'),
      api('GET', '/environments'),
    ])
  } catch (error) {
    if (current()) replace(main, pageHeader(title, { crumbs }), errorBox(error))
    return
  }
  if (!current()) return
  const [{ providers }, addon, { projects }, { environments }] = loaded
  const providerName = addon?.provider ?? params.provider
  const provider = providers.find((candidate) => candidate.name === providerName)
  if (!provider) {
    replace(main, pageHeader(title, { crumbs }), h('p', { class: 'alert error', role: 'alert' }, `There is no provider ${providerName}.`))
    return
  }
  const name = addon ? integrationName(addon, provider) : `New ${provider.displayName} integration`
  const permission = addon ? 'UPDATE_ADDON' : 'CREATE_ADDON'
  const fields = integrationFields({
    provider,
    addon,
    projects: projects.map((project) => project.id),
    environments: environments.map((environment) => environment.name),
  })
  const general = h('div', { 'aria-live': 'polite' })
  const save = h('button', { type: 'submit', class: 'primary' }, addon ? 'Save integration' : 'Add integration')
  const form = h(
    'form',
    { novalidate: true, class: 'card' },
    fields.element,
    general,
    h('div', { class: 'actions' }, guard(save, permission), h('a', { class: 'button secondary', href: '#/integrations' }, 'Cancel')),
  )
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    clearFieldErrors(form)
    replace(general)
    save.disabled = true
    try {
      const body = fields.body()
      const saved = addon ? await api('PUT', `/addons/${addon.id}`, body) : await api('POST', '/addons', body)
      announce(`${integrationName(saved, provider)} ${addon ? 'saved' : 'added'}.`)
      navigate('#/integrations')
    } catch (error) {
      showFieldErrors(form, error instanceof ApiError ? error.details : [{ message: String(error) }], general)
    } finally {
      save.disabled = !can(permission)
    }
  })
  replace(
    main,
    pageHeader(name, {
      crumbs,
      actions: addon ? [deliveryLogLink(addon, name)] : [],
      subtitle: [
        provider.description,
        provider.howTo ? ` ${provider.howTo}` : '',
        ' ',
        h('a', { href: provider.documentationUrl, rel: 'noopener noreferrer', target: '_blank' }, 'Its documentation (Unleash)'),
      ],
    }),
    form,
  )
}
