// @ts-check
/**
 * The strategy definitions flags can use: built-in and custom, with their parameters; deprecate
 * and reactivate any of them, and define a custom one. Flags keep a deprecated strategy; the
 * strategy dialog no longer offers it.
 */
import { api, ApiError, seg } from '../api.js'
import { announce, field, h, replace, showFieldErrors, uid } from '../dom.js'
import { rowElement, rowList } from '../row-list.js'
import { badge, errorBox, guard, loading, pageHeader, runAction, section } from '../ui.js'

/** @typedef {{ name: string, type: string, description: string, required: boolean }} Parameter */
/** @typedef {{ name: string, title: string | null, displayName: string | null, description: string | null, editable: boolean, deprecated: boolean, parameters: Parameter[] }} StrategyDefinition */

const PARAMETER_TYPES = ['string', 'percentage', 'list', 'number', 'boolean']

/** @param {import('../router.js').ViewContext} context */
export async function strategiesView({ main, current }) {
  const notice = h('div', { 'aria-live': 'polite' })
  const results = h('div', null, loading())
  replace(
    main,
    pageHeader('Strategies', {
      subtitle:
        'What flag strategies can be: SDKs implement the built-in ones; a custom one needs an implementation in each SDK that meets it.',
    }),
    notice,
    section('Defined strategies', results),
    section('New custom strategy', createForm()),
  )

  async function load() {
    /** @type {{ strategies: StrategyDefinition[] }} */
    let answer
    try {
      answer = await api('GET', '/strategies')
    } catch (error) {
      if (current()) replace(results, errorBox(error))
      return
    }
    if (current()) replace(results, table(answer.strategies))
  }

  /** @param {StrategyDefinition[]} definitions */
  function table(definitions) {
    return h(
      'table',
      { class: 'table' },
      h('caption', { class: 'visually-hidden' }, 'Strategy definitions'),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          ['Strategy', 'Description', 'Parameters', 'State', 'Actions'].map((title) => h('th', { scope: 'col' }, title)),
        ),
      ),
      h(
        'tbody',
        null,
        definitions.map((definition) => {
          const shown = definition.displayName ?? definition.title ?? definition.name
          const action = definition.deprecated ? 'reactivate' : 'deprecate'
          return h(
            'tr',
            { 'data-strategy-definition': definition.name },
            h('th', { scope: 'row' }, shown, shown === definition.name ? null : h('span', { class: 'hint' }, ` ${definition.name}`)),
            h('td', null, definition.description ?? ''),
            h(
              'td',
              null,
              definition.parameters.length
                ? h(
                    'ul',
                    { class: 'plain' },
                    definition.parameters.map((parameter) =>
                      h('li', null, h('code', null, parameter.name), ` ${parameter.type}${parameter.required ? ', required' : ''}`),
                    ),
                  )
                : '–',
            ),
            h(
              'td',
              null,
              badge(definition.editable ? 'custom' : 'built in'),
              ' ',
              definition.deprecated ? badge('deprecated', 'warn') : null,
            ),
            h(
              'td',
              null,
              guard(
                h(
                  'button',
                  {
                    type: 'button',
                    class: 'secondary small',
                    'aria-label': `${definition.deprecated ? 'Reactivate' : 'Deprecate'} strategy ${definition.name}`,
                    onclick: () =>
                      run(
                        () => api('POST', `/strategies/${seg(definition.name)}/${action}`),
                        `${definition.name} ${definition.deprecated ? 'reactivated' : 'deprecated'}.`,
                      ),
                  },
                  definition.deprecated ? 'Reactivate' : 'Deprecate',
                ),
                'UPDATE_STRATEGY',
              ),
            ),
          )
        }),
      ),
    )
  }

  /** @param {() => Promise<unknown>} action @param {string} done */
  async function run(action, done) {
    await runAction(notice, load, action, done)
  }

  function createForm() {
    const name = h('input', { type: 'text', name: 'name', required: true, autocomplete: 'off' })
    const description = h('textarea', { name: 'description', rows: 2 })
    const parameters = parameterEditor()
    const general = h('div')
    const form = h(
      'form',
      { novalidate: true },
      h(
        'div',
        { class: 'form-grid' },
        field('Name', name, { path: '/body/name', hint: 'URL-friendly, unique among the strategies' }),
        field('Description', description, { path: '/body/description' }),
      ),
      parameters.element,
      general,
      h('div', { class: 'actions' }, guard(h('button', { type: 'submit', class: 'primary' }, 'Create strategy'), 'CREATE_STRATEGY')),
    )
    form.addEventListener('submit', async (event) => {
      event.preventDefault()
      replace(general)
      try {
        const created = await api('POST', '/strategies', {
          name: name.value.trim(),
          description: description.value.trim() || null,
          parameters: parameters.value(),
        })
        announce(`Strategy ${created.name} created.`)
        form.reset()
        parameters.clear()
        await load()
      } catch (error) {
        showFieldErrors(form, error instanceof ApiError ? error.details : [{ message: String(error) }], general)
      }
    })
    return form
  }

  await load()
}

/** A definition's parameters: name, type, description and whether people must fill it in. */
function parameterEditor() {
  return rowList({
    /** @type {Parameter[]} */
    initial: [],
    path: '/body/parameters',
    legend: 'Parameters',
    list: h('ol', { class: 'plain' }),
    row: (parameter, index, remove) => {
      const path = `/body/parameters/${index}`
      const name = h('input', { type: 'text', name: 'parameterName', value: parameter.name, autocomplete: 'off' })
      const type = h(
        'select',
        { name: 'parameterType' },
        PARAMETER_TYPES.map((value) => h('option', { value, selected: value === parameter.type }, value)),
      )
      const description = h('input', { type: 'text', name: 'parameterDescription', value: parameter.description, autocomplete: 'off' })
      const required = h('input', { type: 'checkbox', name: 'parameterRequired', checked: parameter.required, id: uid('required') })
      const element = rowElement(
        'li',
        'constraint',
        path,
        [
          field(`Parameter ${index + 1} name`, name, { path: `${path}/name` }),
          field(`Parameter ${index + 1} type`, type, { path: `${path}/type` }),
          field(`Parameter ${index + 1} description`, description, { path: `${path}/description` }),
        ],
        h(
          'div',
          { class: 'constraint-foot' },
          h('label', { class: 'check', for: required.id }, required, ` Parameter ${index + 1} required`),
          remove,
        ),
      )
      const read = () => ({
        name: name.value.trim(),
        type: type.value,
        description: description.value.trim(),
        required: required.checked,
      })
      return { element, read }
    },
    blank: () => ({ name: '', type: 'string', description: '', required: false }),
    removeLabel: (index) => `Remove parameter ${index + 1}`,
    addText: 'Add parameter',
    empty: 'No parameters.',
  })
}
