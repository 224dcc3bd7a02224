// @ts-check
/**
 * The fields of an integration, generated from its provider's own parameter definitions (as
 * `GET /api/admin/addons` lists them), its events, and the projects and environments it takes.
 * A stored secret is never shown back: its field stays empty, and saving it empty sends `*****`,
 * which the server reads as "keep the stored one" (a PUT replaces the parameters, so leaving it
 * out would remove it).
 */
import { field, h, uid } from './dom.js'

/** What the server shows for a stored secret, and takes back to keep it. */
export const MASK = '*****'

/** @typedef {{ name: string, displayName: string, type: string, description: string, placeholder?: string, required: boolean, sensitive: boolean }} ProviderParameter */
/** @typedef {{ name: string, displayName: string, description: string, documentationUrl: string, howTo?: string, parameters: ProviderParameter[], events: string[] }} Provider */
/** @typedef {string | number | boolean} ParameterValue */
/** @typedef {{ id: number, provider: string, description: string | null, enabled: boolean, parameters: Record<string, ParameterValue>, events: string[], projects: string[], environments: string[], createdAt: string }} Addon */
/** @typedef {{ provider: string, description: string | null, enabled: boolean, parameters: Record<string, ParameterValue>, events: string[], projects: string[], environments: string[] }} AddonBody */

/** How a list shows an integration: its provider's name and its id. @param {Addon} addon @param {Provider | undefined} provider */
export const integrationName = (addon, provider) => `${provider?.displayName ?? addon.provider} #${addon.id}`

/** Empty, or starting with `*`: every one (the server's rule). @param {string[]} names */
export const takesAll = (names) => names.length === 0 || names[0] === '*'

/**
 * @param {{ provider: Provider, addon?: Addon, projects: string[], environments: string[] }} options
 * @returns {{ element: HTMLElement, body: () => AddonBody }}
 */
export function integrationFields({ provider, addon, projects, environments }) {
  const enabled = h('input', { type: 'checkbox', name: 'enabled', id: uid('enabled'), checked: addon ? addon.enabled : true })
  const description = h('input', { type: 'text', name: 'description', value: addon?.description ?? '', autocomplete: 'off' })
  const parameters = provider.parameters.map((parameter) => parameterField(parameter, addon?.parameters[parameter.name]))
  const events = checkboxGroup({
    legend: 'Events',
    path: '/body/events',
    hint: 'The event types it is sent.',
    names: provider.events,
    checked: addon?.events ?? [],
    bulk: true,
  })
  const projectChoice = checkboxGroup({
    legend: 'Projects',
    path: '/body/projects',
    hint: 'None checked: every project (and events of none).',
    names: projects,
    checked: addon && !takesAll(addon.projects) ? addon.projects : [],
  })
  const environmentChoice = checkboxGroup({
    legend: 'Environments',
    path: '/body/environments',
    hint: 'None checked: every environment (and events of none).',
    names: environments,
    checked: addon && !takesAll(addon.environments) ? addon.environments : [],
  })
  const element = h(
    'div',
    null,
    h('p', null, h('label', { class: 'check', for: enabled.id }, enabled, ' Enabled: send it the events it takes')),
    h('div', { class: 'form-grid' }, field('Description', description, { path: '/body/description' })),
    h(
      'fieldset',
      { 'data-path': '/body/parameters' },
      h('legend', null, 'Parameters'),
      h('p', { class: 'field-error', hidden: true }),
      parameters.map((parameter) => parameter.element),
    ),
    events.element,
    projectChoice.element,
    environmentChoice.element,
  )
  return {
    element,
    body: () => ({
      provider: provider.name,
      // A new one without a description has none; a description emptied on a change is sent
      // empty, since one not sent (or null) is kept.
      description: description.value.trim() || (addon ? '' : null),
      enabled: enabled.checked,
      parameters: Object.fromEntries(parameters.flatMap((parameter) => parameter.entry())),
      events: events.value(),
      projects: projectChoice.value(),
      environments: environmentChoice.value(),
    }),
  }
}

/**
 * One parameter's field: a text area for `textfield`, a one-line input otherwise (a password
 * input for a secret). A stored secret shows empty, with a way to remove it when it is optional.
 * @param {ProviderParameter} parameter
 * @param {ParameterValue | undefined} stored as the server shows it (`*****` for a stored secret)
 */
function parameterField(parameter, stored) {
  const storedSecret = parameter.sensitive && stored !== undefined
  const shown = storedSecret || stored === undefined ? '' : String(stored)
  const attrs = {
    name: parameter.name,
    placeholder: parameter.placeholder || null,
    autocomplete: parameter.sensitive ? 'new-password' : 'off',
    spellcheck: 'false',
    'aria-required': parameter.required && !storedSecret ? 'true' : null,
  }
  const control =
    parameter.type === 'textfield'
      ? h('textarea', { ...attrs, rows: 4 })
      : h('input', { ...attrs, type: parameter.sensitive ? 'password' : 'text', inputmode: parameter.type === 'url' ? 'url' : null })
  control.value = shown
  const hint = storedSecret ? `${parameter.description} Stored; leave empty to keep.` : parameter.description
  const remove =
    storedSecret && !parameter.required ? h('input', { type: 'checkbox', name: `remove-${parameter.name}`, id: uid('remove') }) : null
  const element = h(
    'div',
    { 'data-parameter': parameter.name },
    field(parameter.displayName, control, { path: `/body/parameters/${parameter.name}`, hint }),
    remove ? h('p', null, h('label', { class: 'check', for: remove.id }, remove, ` Remove the stored ${parameter.displayName}`)) : null,
  )
  return {
    element,
    /** @returns {[string, ParameterValue][]} the parameter as sent, or nothing when left out */
    entry: () => {
      // One-line values are trimmed; a template or JSON keeps its own layout.
      const value = parameter.type === 'textfield' ? control.value : control.value.trim()
      if (value.trim() !== '') return [[parameter.name, value]]
      if (storedSecret && !remove?.checked) return [[parameter.name, MASK]]
      return []
    },
  }
}

/**
 * Checkboxes for names to pick; names checked but no longer offered (a project since deleted) are
 * listed too, so saving keeps them.
 * @param {{ legend: string, path: string, hint: string, names: readonly string[], checked: string[], bulk?: boolean }} options
 */
function checkboxGroup({ legend, path, hint, names, checked, bulk = false }) {
  const all = [...names, ...checked.filter((name) => !names.includes(name))]
  const boxes = all.map((name) => h('input', { type: 'checkbox', value: name, id: uid('pick'), checked: checked.includes(name) }))
  /** @param {boolean} value */
  const setAll = (value) => {
    for (const box of boxes) box.checked = value
  }
  const element = h(
    'fieldset',
    { 'data-path': path },
    h('legend', null, legend),
    h('p', { class: 'hint' }, hint),
    h('p', { class: 'field-error', hidden: true }),
    bulk
      ? h(
          'div',
          { class: 'actions' },
          h('button', { type: 'button', class: 'link', onclick: () => setAll(true) }, `Select all ${all.length}`),
          h('button', { type: 'button', class: 'link', onclick: () => setAll(false) }, 'Select none'),
        )
      : null,
    all.length === 0
      ? h('p', { class: 'empty' }, 'None to choose from.')
      : h(
          'div',
          null,
          boxes.map((box) => h('label', { class: 'check', for: box.id }, box, ' ', h('code', null, box.value))),
        ),
  )
  return { element, value: () => boxes.filter((box) => box.checked).map((box) => box.value) }
}
