// @ts-check
/**
 * The playground: one context evaluated against the flags of an environment, as an SDK would
 * (POST /playground), each flag told in sentences (playground-explain.js). The context form
 * offers the defined context fields, a field with legal values as a choice of them, and free
 * properties besides.
 */
import { api, ApiError } from '../api.js'
import { loadContextFields } from '../constraint-editor.js'
import { announce, field, h, replace, showFieldErrors, uid } from '../dom.js'
import { explainFeature } from '../playground-explain.js'
import { link } from '../router.js'
import { badge, errorBox, loading, pageHeader, section } from '../ui.js'

/** Fields an SDK context carries at its top level; any other is one of its `properties`. */
const TOP_LEVEL = new Set(['appName', 'environment', 'userId', 'sessionId', 'remoteAddress', 'currentTime'])

/** @param {import('../router.js').ViewContext} context */
export async function playgroundView({ main, current }) {
  const header = pageHeader('Playground', { subtitle: 'Evaluate a context as an SDK would, and read why each flag is on or off.' })
  replace(main, header, loading())
  /** @type {[{ environments: { name: string, enabled?: boolean }[] }, { projects: { id: string, name: string }[] }, import('../constraint-editor.js').ContextField[]]} */
  let loaded
  try {
    loaded = await Promise.all([api('GET', '/environments'), api('GET', '/projects'), loadContextFields()])
  } catch (error) {
    if (current()) replace(main, header, errorBox(error))
    return
  }
  if (!current()) return
  const [{ environments }, { projects }, fields] = loaded
  const results = h('div', { class: 'playground-results', 'aria-live': 'polite' })
  replace(main, header, section('Context', contextForm(environments, projects, fields, results)), section('Flags', results))
}

/**
 * @param {{ name: string }[]} environments
 * @param {{ id: string, name: string }[]} projects
 * @param {import('../constraint-editor.js').ContextField[]} fields
 * @param {HTMLElement} results
 */
function contextForm(environments, projects, fields, results) {
  const environment = h(
    'select',
    { name: 'environment' },
    environments.map((env) => h('option', { value: env.name, selected: env.name === 'development' }, env.name)),
  )
  const allProjects = h('input', { type: 'checkbox', name: 'allProjects', checked: true, id: uid('all-projects') })
  const projectBoxes = projects.map((project) =>
    h('input', { type: 'checkbox', name: 'project', value: project.id, 'aria-label': `Project ${project.name}` }),
  )
  allProjects.addEventListener('change', () => {
    if (allProjects.checked) for (const box of projectBoxes) box.checked = false
  })
  for (const box of projectBoxes)
    box.addEventListener('change', () => {
      allProjects.checked = !projectBoxes.some((item) => item.checked)
    })
  const appName = h('input', { type: 'text', name: 'appName', value: 'playground', required: true, autocomplete: 'off' })

  // Each defined field: its legal values to choose from, or any text. appName has its own input.
  const ordered = [...fields]
    .filter((contextField) => contextField.name !== 'appName')
    .sort((a, b) => a.sortOrder - b.sortOrder || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  /** @type {{ name: string, read: () => string }[]} */
  const definedReaders = []
  const definedFields = ordered.map((contextField) => {
    const path = TOP_LEVEL.has(contextField.name) ? `/body/context/${contextField.name}` : `/body/context/properties/${contextField.name}`
    /** @type {HTMLInputElement | HTMLSelectElement} */
    let control
    if (contextField.legalValues.length) {
      control = h(
        'select',
        { name: contextField.name, 'data-context-field': contextField.name },
        h('option', { value: '' }, '(not set)'),
        contextField.legalValues.map((legalValue) =>
          h(
            'option',
            { value: legalValue.value },
            legalValue.description ? `${legalValue.value} (${legalValue.description})` : legalValue.value,
          ),
        ),
      )
    } else {
      control = h('input', {
        type: 'text',
        name: contextField.name,
        autocomplete: 'off',
        'data-context-field': contextField.name,
        placeholder: contextField.name === 'currentTime' ? '2030-01-01T00:00:00Z' : '',
      })
    }
    definedReaders.push({ name: contextField.name, read: () => control.value.trim() })
    const hint =
      contextField.name === 'currentTime'
        ? 'ISO 8601; empty: now'
        : contextField.name === 'environment'
          ? 'Not the environment evaluated: what constraints on environment read'
          : (contextField.description ?? undefined)
    return field(contextField.name === 'environment' ? 'environment (context field)' : contextField.name, control, { path, hint })
  })

  const free = propertyRows()
  const general = h('div')
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Evaluate')
  const form = h(
    'form',
    { novalidate: true, class: 'playground-form' },
    h(
      'div',
      { class: 'form-grid' },
      field('Environment', environment, { path: '/body/environment' }),
      field('App name', appName, { path: '/body/context/appName' }),
    ),
    h(
      'fieldset',
      { 'data-path': '/body/projects' },
      h('legend', null, 'Projects'),
      h('p', { class: 'field-error', hidden: true }),
      h('label', { class: 'check', for: allProjects.id }, allProjects, ' All projects'),
      projects.map((project, index) => h('label', { class: 'check' }, projectBoxes[index], ` ${project.name}`)),
    ),
    h('fieldset', null, h('legend', null, 'Context fields'), h('div', { class: 'form-grid' }, definedFields)),
    free.element,
    general,
    h('div', { class: 'actions' }, submit),
  )

  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    replace(general)
    /** @type {Record<string, unknown>} */
    const sdkContext = { appName: appName.value.trim() }
    /** @type {Record<string, string>} */
    const properties = {}
    const put = (/** @type {string} */ name, /** @type {string} */ value) => {
      if (!name || value === '') return
      if (TOP_LEVEL.has(name)) sdkContext[name] = value
      else properties[name] = value
    }
    for (const { name, read } of definedReaders) put(name, read())
    for (const { name, value } of free.value()) put(name, value)
    if (Object.keys(properties).length) sdkContext.properties = properties
    const chosen = projectBoxes.filter((box) => box.checked).map((box) => box.value)
    const body = { environment: environment.value, projects: chosen.length ? chosen : '*', context: sdkContext }
    submit.disabled = true
    try {
      /** @type {{ features: import('../playground-explain.js').PlayedFeature[] }} */
      const answer = await api('POST', '/playground', body)
      showResults(results, answer.features, sdkContext, body.environment)
      const on = answer.features.filter((feature) => feature.isEnabled).length
      announce(`${answer.features.length} flag${answer.features.length === 1 ? '' : 's'} evaluated: ${on} on.`)
    } catch (error) {
      if (error instanceof ApiError) showFieldErrors(form, error.details, general)
      else replace(general, errorBox(error))
    } finally {
      submit.disabled = false
    }
  })
  return form
}

/** Free properties: a name and a value each, for fields not defined (yet). */
function propertyRows() {
  /** @type {{ name: HTMLInputElement, value: HTMLInputElement }[]} */
  const rows = []
  const list = h('ol', { class: 'plain' })
  const add = () => {
    const index = rows.length + 1
    const name = h('input', { type: 'text', name: 'propertyName', autocomplete: 'off', spellcheck: 'false' })
    const value = h('input', { type: 'text', name: 'propertyValue', autocomplete: 'off' })
    rows.push({ name, value })
    list.append(h('li', { class: 'form-grid' }, field(`Property ${index} name`, name), field(`Property ${index} value`, value)))
    name.focus()
  }
  const element = h(
    'fieldset',
    null,
    h('legend', null, 'Other properties'),
    h('p', { class: 'hint' }, 'Any field a constraint may name, defined or not.'),
    list,
    h('button', { type: 'button', class: 'secondary small', onclick: add }, 'Add property'),
  )
  return { element, value: () => rows.map((row) => ({ name: row.name.value.trim(), value: row.value.value.trim() })) }
}

/**
 * @param {HTMLElement} results
 * @param {import('../playground-explain.js').PlayedFeature[]} features
 * @param {Record<string, unknown>} sdkContext
 * @param {string} environment
 */
function showResults(results, features, sdkContext, environment) {
  if (features.length === 0) {
    replace(results, h('p', { class: 'empty' }, 'No flags in these projects.'))
    return
  }
  replace(
    results,
    h(
      'p',
      { class: 'result-count' },
      `${features.length} flag${features.length === 1 ? '' : 's'} in ${environment}, ${features.filter((feature) => feature.isEnabled).length} on.`,
    ),
    h(
      'ul',
      { class: 'plain played' },
      features.map((feature) => {
        const story = explainFeature(feature, /** @type {import('../playground-explain.js').PlayedContext} */ (sdkContext), environment)
        return h(
          'li',
          { class: `played-flag ${story.state}`, 'data-feature': feature.name, 'data-state': story.state },
          h(
            'div',
            { class: 'played-head' },
            h('a', { href: link('projects', feature.projectId, 'features', feature.name) }, h('strong', null, feature.name)),
            badge(story.state === 'on' ? 'on' : 'off', story.state === 'on' ? 'ok' : 'bad'),
            feature.isEnabled && feature.variant.enabled ? badge(`variant ${feature.variant.name}`) : null,
            h('span', { class: 'hint' }, feature.projectId),
          ),
          h('p', { class: 'headline', 'data-headline': '' }, rich(story.headline)),
          h(
            'ul',
            { class: 'why' },
            h('li', { 'data-variant-reason': '' }, rich(story.variant)),
            story.dependency ? h('li', { 'data-dependency-reason': '' }, 'Parent: ', rich(story.dependency)) : null,
            story.segments.length
              ? h(
                  'li',
                  null,
                  'Segments: ',
                  story.segments.map((segment, index) => [index ? '; ' : '', rich(segment)]),
                )
              : null,
          ),
          story.strategies.length
            ? h(
                'details',
                null,
                h('summary', null, `${story.strategies.length} strateg${story.strategies.length === 1 ? 'y' : 'ies'}`),
                h(
                  'ol',
                  { class: 'why' },
                  story.strategies.map((strategy) =>
                    h(
                      'li',
                      { 'data-verdict': strategy.verdict },
                      h('strong', null, `${strategy.label}: ${strategy.verdict}`),
                      h(
                        'ul',
                        null,
                        strategy.reasons.map((reason) => h('li', null, rich(reason))),
                      ),
                    ),
                  ),
                ),
              )
            : null,
        )
      }),
    ),
  )
}

/** Text whose `backticked` parts are code. @param {string} text */
function rich(text) {
  return text.split('`').map((part, index) => (index % 2 ? h('code', null, part) : part))
}
