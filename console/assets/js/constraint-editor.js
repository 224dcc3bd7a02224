// @ts-check
/**
 * Edits a list of constraints, with the value input each operator takes: a list (one value per
 * line), a number, a date, a semantic version or a pattern. Each input sits in a field whose
 * `data-path` is `/body/constraints/<i>/<property>`, so the server's errors land beside it.
 * The context fields the server defines are offered as names, and a field's legal values as the
 * values to pick (checkboxes for a list, suggestions for one value): the server takes no other.
 */
import { api, seg } from './api.js'
import { field, h, replace, uid } from './dom.js'

/** @typedef {{ contextName: string, operator: string, values?: string[], value?: string, inverted?: boolean, caseInsensitive?: boolean }} Constraint */

/** @type {[string, [string, string][]][]} */
const OPERATOR_GROUPS = [
  [
    'Lists and strings',
    [
      ['IN', 'is one of'],
      ['NOT_IN', 'is not one of'],
      ['STR_CONTAINS', 'contains'],
      ['STR_STARTS_WITH', 'starts with'],
      ['STR_ENDS_WITH', 'ends with'],
      ['IN_CIDR', 'is an address in'],
    ],
  ],
  [
    'Numbers',
    [
      ['NUM_EQ', '='],
      ['NUM_GT', '>'],
      ['NUM_GTE', '≥'],
      ['NUM_LT', '<'],
      ['NUM_LTE', '≤'],
    ],
  ],
  [
    'Dates',
    [
      ['DATE_AFTER', 'is after'],
      ['DATE_BEFORE', 'is before'],
    ],
  ],
  [
    'Versions',
    [
      ['SEMVER_EQ', 'version ='],
      ['SEMVER_GT', 'version >'],
      ['SEMVER_GTE', 'version ≥'],
      ['SEMVER_LT', 'version <'],
      ['SEMVER_LTE', 'version ≤'],
    ],
  ],
  ['Patterns', [['REGEX', 'matches the pattern']]],
]

export const CONTEXT_FIELDS = ['userId', 'sessionId', 'remoteAddress', 'appName', 'environment', 'currentTime']

/** @typedef {{ value: string, description?: string }} LegalValue */
/** @typedef {{ name: string, description: string | null, stickiness: boolean, sortOrder: number, legalValues: LegalValue[], project?: string, usedInFeatures?: number, usedInProjects?: number, createdAt: string }} ContextField */

/**
 * The context fields the server defines, by name: every project's, and with `project` that
 * project's own too.
 * @param {string} [project]
 * @returns {Promise<ContextField[]>}
 */
export function loadContextFields(project) {
  return api('GET', project ? `/projects/${seg(project)}/context?include=root` : '/context')
}

/** Fields in the order they are offered: by sort order, then name. @param {ContextField} a @param {ContextField} b */
const offeredOrder = (a, b) => a.sortOrder - b.sortOrder || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)

/**
 * The shape of value an operator takes.
 * @param {string} operator
 * @returns {'list' | 'number' | 'date' | 'semver' | 'regex'}
 */
export function valueShape(operator) {
  if (operator.startsWith('NUM_')) return 'number'
  if (operator.startsWith('DATE_')) return 'date'
  if (operator.startsWith('SEMVER_')) return 'semver'
  if (operator === 'REGEX') return 'regex'
  return 'list'
}

/** Constraint text as people read it: `userId is one of a, b`. @param {Constraint} constraint */
export function describeConstraint(constraint) {
  const label =
    OPERATOR_GROUPS.flatMap(([, operators]) => operators).find(([operator]) => operator === constraint.operator)?.[1] ?? constraint.operator
  const shape = valueShape(constraint.operator)
  const value = shape === 'list' ? (constraint.values ?? []).join(', ') : (constraint.value ?? '')
  const flags = [constraint.caseInsensitive ? 'any case' : '', constraint.inverted ? 'inverted' : ''].filter(Boolean)
  return `${constraint.inverted ? 'NOT ' : ''}${constraint.contextName} ${label} ${value}${flags.length ? ` (${flags.join(', ')})` : ''}`
}

/** ISO → the `YYYY-MM-DDTHH:mm:ss` local form a datetime-local input shows. @param {string} iso */
function toLocalInput(iso) {
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return ''
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000)
  return local.toISOString().slice(0, 19)
}

/**
 * @param {Constraint[]} initial
 * @param {{ basePath?: string, legend?: string, project?: string }} [options] project: offer that project's own context fields too
 * @returns {{ element: HTMLElement, value: () => Constraint[] }}
 */
export function constraintEditor(initial, options = {}) {
  const basePath = options.basePath ?? '/body/constraints'
  /** @type {Constraint[]} */
  let constraints = initial.map((constraint) => ({ ...constraint, values: [...(constraint.values ?? [])] }))
  /** @type {(() => Constraint)[]} */
  let readers = []
  /** Each row's "the fields arrived": shows the legal values of its field. @type {(() => void)[]} */
  let refreshers = []
  /** The defined fields, once the server answered (until then the usual names are offered). @type {Map<string, ContextField>} */
  let defined = new Map()
  const list = h('ol', { class: 'constraints' })
  const contextList = h(
    'datalist',
    { id: uid('context-names') },
    CONTEXT_FIELDS.map((name) => h('option', { value: name })),
  )
  loadContextFields(options.project).then(
    (fields) => {
      defined = new Map(fields.map((contextField) => [contextField.name, contextField]))
      replace(
        contextList,
        [...fields].sort(offeredOrder).map((contextField) => h('option', { value: contextField.name }, contextField.description ?? '')),
      )
      for (const refresh of refreshers) refresh()
    },
    () => {
      // The fields could not be read: the usual names stay offered, and any value can be typed.
    },
  )
  const fieldset = h(
    'fieldset',
    { class: 'constraint-editor', 'data-path': basePath },
    h('legend', null, options.legend ?? 'Constraints'),
    h('p', { class: 'field-error', hidden: true }),
    contextList,
    list,
    h(
      'button',
      {
        type: 'button',
        class: 'secondary small',
        onclick: () => {
          sync()
          constraints.push({ contextName: 'userId', operator: 'IN', values: [] })
          render()
          const inputs = list.querySelectorAll('input[name="contextName"]')
          const last = inputs[inputs.length - 1]
          if (last instanceof HTMLInputElement) last.focus()
        },
      },
      'Add constraint',
    ),
  )

  function sync() {
    constraints = readers.map((read) => read())
  }

  function render() {
    readers = []
    refreshers = []
    replace(
      list,
      constraints.map((constraint, index) => row(constraint, index)),
    )
    if (constraints.length === 0) list.append(h('li', { class: 'empty' }, 'No constraints: everyone is matched.'))
  }

  /**
   * @param {Constraint} constraint
   * @param {number} index
   */
  function row(constraint, index) {
    const path = `${basePath}/${index}`
    const contextName = h('input', {
      type: 'text',
      name: 'contextName',
      value: constraint.contextName,
      list: contextList.id,
      autocomplete: 'off',
      required: true,
    })
    const operator = h(
      'select',
      { name: 'operator' },
      OPERATOR_GROUPS.map(([group, operators]) =>
        h(
          'optgroup',
          { label: group },
          operators.map(([value, label]) => h('option', { value, selected: value === constraint.operator }, `${label} (${value})`)),
        ),
      ),
    )
    const inverted = h('input', { type: 'checkbox', name: 'inverted', checked: constraint.inverted === true })
    const caseInsensitive = h('input', { type: 'checkbox', name: 'caseInsensitive', checked: constraint.caseInsensitive === true })
    const valueSlot = h('div', { class: 'value-slot' })
    const options = h('div', { class: 'checks' })
    /** @type {() => Pick<Constraint, 'values' | 'value'>} */
    let readValue = () => ({ values: [] })
    /** The legal values the value slot shows, to know when the field's name changed to one with others. */
    let shownLegal = ''
    const legalOf = () => defined.get(contextName.value.trim())?.legalValues ?? []

    /** @param {Constraint} current */
    function renderValue(current) {
      const shape = valueShape(operator.value)
      const legal = legalOf()
      shownLegal = JSON.stringify(legal)
      if (shape === 'list' && legal.length > 0) {
        readValue = legalValueBoxes(
          valueSlot,
          legal,
          current.values ?? (current.value ? [current.value] : []),
          `${path}/values`,
          operator.value === 'IN_CIDR',
        )
      } else if (shape === 'list') {
        const values = h('textarea', { name: 'values', rows: 3, spellcheck: 'false' })
        values.value = (current.values ?? (current.value ? [current.value] : [])).join('\n')
        readValue = () => ({
          values: values.value
            .split('\n')
            .map((line) => line.trim())
            .filter(Boolean),
        })
        const hint = operator.value === 'IN_CIDR' ? 'One address or CIDR range per line (10.0.0.0/8)' : 'One value per line'
        replace(valueSlot, field('Values', values, { path: `${path}/values`, hint }))
      } else {
        const previous = current.value ?? current.values?.[0] ?? ''
        /** @type {HTMLInputElement} */
        let input
        let hint
        if (shape === 'date') {
          input = h('input', { type: 'datetime-local', name: 'value', step: 1, value: previous ? toLocalInput(previous) : '' })
          hint = 'Your local time; stored as UTC (ISO 8601)'
          readValue = () => ({ values: [], value: input.value ? new Date(input.value).toISOString() : '' })
        } else {
          const attributes =
            shape === 'number'
              ? { inputmode: 'decimal', placeholder: '42' }
              : shape === 'semver'
                ? { placeholder: '1.2.3', spellcheck: 'false' }
                : { placeholder: '^beta-[0-9]+$', spellcheck: 'false' }
          input = h('input', { type: 'text', name: 'value', value: previous, autocomplete: 'off', ...attributes })
          hint =
            shape === 'number'
              ? 'A number'
              : shape === 'semver'
                ? 'A strict semantic version: 1.2.3 or 2.0.0-beta.1'
                : 'A regular expression (RE2 syntax, as the SDKs evaluate it)'
          readValue = () => ({ values: [], value: input.value.trim() })
        }
        // A field with legal values takes only those: offered as suggestions.
        const suggestions =
          legal.length > 0 && shape !== 'date'
            ? h(
                'datalist',
                { id: uid('legal-values') },
                legal.map((legalValue) => h('option', { value: legalValue.value }, legalValue.description ?? '')),
              )
            : null
        if (suggestions) {
          input.setAttribute('list', suggestions.id)
          hint = `One of the legal values of ${contextName.value.trim()}`
        }
        replace(valueSlot, field('Value', input, { path: `${path}/value`, hint }), suggestions)
      }
      const stringy = operator.value.startsWith('STR_') || operator.value === 'REGEX'
      const invertible = operator.value !== 'REGEX'
      replace(
        options,
        invertible ? h('label', { class: 'check' }, inverted, ' Inverted (NOT)') : null,
        stringy ? h('label', { class: 'check' }, caseInsensitive, ' Ignore case') : null,
      )
    }

    const rerender = () => renderValue({ contextName: contextName.value, operator: operator.value, ...readValue() })
    operator.addEventListener('change', rerender)
    // Another field's legal values (or none): the value slot follows the name as it is typed or picked.
    const follow = () => {
      if (JSON.stringify(legalOf()) !== shownLegal) rerender()
    }
    contextName.addEventListener('input', follow)
    refreshers.push(follow)
    renderValue(constraint)
    readers.push(() => {
      const operatorValue = operator.value
      /** @type {Constraint} */
      const out = { contextName: contextName.value.trim(), operator: operatorValue, ...readValue() }
      if (operatorValue !== 'REGEX' && inverted.checked) out.inverted = true
      if ((operatorValue.startsWith('STR_') || operatorValue === 'REGEX') && caseInsensitive.checked) out.caseInsensitive = true
      return out
    })
    return h(
      'li',
      { class: 'constraint', 'data-path': path },
      h('p', { class: 'field-error', hidden: true }),
      h(
        'div',
        { class: 'constraint-grid' },
        field('Context field', contextName, { path: `${path}/contextName` }),
        field('Operator', operator, { path: `${path}/operator` }),
        valueSlot,
      ),
      h(
        'div',
        { class: 'constraint-foot' },
        options,
        h(
          'button',
          {
            type: 'button',
            class: 'link danger',
            'aria-label': `Remove constraint ${index + 1}`,
            onclick: () => {
              sync()
              constraints.splice(index, 1)
              render()
            },
          },
          'Remove',
        ),
      ),
    )
  }

  render()
  return {
    element: fieldset,
    value: () => {
      sync()
      return constraints
    },
  }
}

/**
 * A list operator's values on a field with legal values: a checkbox per legal value, and the
 * values a constraint has that are not (or no longer) legal, checked, so that nothing goes unseen.
 * Returns what reads the checked values, in the field's order.
 * @param {HTMLElement} slot
 * @param {LegalValue[]} legal
 * @param {string[]} selected
 * @param {string} path
 * @param {boolean} cidr
 * @returns {() => Pick<Constraint, 'values'>}
 */
function legalValueBoxes(slot, legal, selected, path, cidr) {
  const chosen = new Set(selected)
  const known = new Set(legal.map((legalValue) => legalValue.value))
  const options = [
    ...legal.map((legalValue) => ({ value: legalValue.value, note: legalValue.description ?? '' })),
    ...selected.filter((value) => !known.has(value)).map((value) => ({ value, note: 'not a legal value' })),
  ]
  const boxes = options.map((option) => ({
    ...option,
    box: h('input', { type: 'checkbox', name: 'values', value: option.value, checked: chosen.has(option.value) }),
  }))
  replace(
    slot,
    h(
      'fieldset',
      { class: 'legal-values', 'data-path': path },
      h('legend', null, 'Values'),
      h('p', { class: 'field-error', hidden: true }),
      h('p', { class: 'hint' }, cidr ? "The field's legal values (addresses or ranges)" : "The field's legal values: pick one or more"),
      boxes.map(({ value, note, box }) =>
        h('label', { class: 'check' }, box, ` ${value}`, note ? h('span', { class: 'hint' }, ` (${note})`) : null),
      ),
    ),
  )
  return () => ({ values: boxes.filter(({ box }) => box.checked).map(({ value }) => value) })
}
