// @ts-check
/**
 * Context fields: the names constraint editors offer, each with its legal values (a constraint on
 * the field may use only those) and whether rollouts may be sticky on it. List, create, edit
 * (description, stickiness, legal values) and delete; the server refuses to delete a field that
 * strategies of active flags constrain on, and says which.
 */
import { api, ApiError, seg } from '../api.js'
import { loadContextFields } from '../constraint-editor.js'
import { announce, confirmDialog, field, h, replace, showFieldErrors, uid } from '../dom.js'
import { rowElement, rowList } from '../row-list.js'
import { badge, errorBox, guard, loading, openFormDialog, pageHeader, runAction, section } from '../ui.js'

/** @typedef {import('../constraint-editor.js').ContextField} ContextField */
/** @typedef {import('../constraint-editor.js').LegalValue} LegalValue */

/** @param {import('../router.js').ViewContext} context */
export async function contextFieldsView({ main, current }) {
  const notice = h('div', { 'aria-live': 'polite' })
  const results = h('div', null, loading())
  replace(
    main,
    pageHeader('Context fields', {
      subtitle: 'The names constraints offer, and the values they may take. A field with legal values takes only those in constraints.',
    }),
    notice,
    section('Defined fields', results),
    section('New context field', createForm()),
  )

  async function load() {
    /** @type {ContextField[]} */
    let fields
    try {
      fields = await loadContextFields()
    } catch (error) {
      if (current()) replace(results, errorBox(error))
      return
    }
    if (current()) replace(results, table(fields))
  }

  /** @param {ContextField[]} fields */
  function table(fields) {
    return h(
      'table',
      { class: 'table' },
      h('caption', { class: 'visually-hidden' }, 'Context fields'),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          ['Field', 'Legal values', 'Stickiness', 'Used in', 'Actions'].map((title) => h('th', { scope: 'col' }, title)),
        ),
      ),
      h(
        'tbody',
        null,
        fields.map((contextField) =>
          h(
            'tr',
            { 'data-context-field': contextField.name },
            h(
              'th',
              { scope: 'row' },
              h('code', null, contextField.name),
              contextField.description ? h('p', { class: 'hint' }, contextField.description) : null,
            ),
            h(
              'td',
              null,
              contextField.legalValues.length
                ? h(
                    'ul',
                    { class: 'plain' },
                    contextField.legalValues.map((legalValue) =>
                      h('li', null, h('code', null, legalValue.value), legalValue.description ? ` ${legalValue.description}` : ''),
                    ),
                  )
                : h('span', { class: 'hint' }, 'any value'),
            ),
            h('td', null, contextField.stickiness ? badge('sticky', 'ok') : '–'),
            h(
              'td',
              null,
              `${contextField.usedInFeatures ?? 0} flag${contextField.usedInFeatures === 1 ? '' : 's'} in ${contextField.usedInProjects ?? 0} project${contextField.usedInProjects === 1 ? '' : 's'}`,
            ),
            h(
              'td',
              null,
              h(
                'span',
                { class: 'row-actions' },
                guard(
                  h(
                    'button',
                    {
                      type: 'button',
                      class: 'secondary small',
                      'aria-label': `Edit context field ${contextField.name}`,
                      onclick: () => edit(contextField),
                    },
                    'Edit',
                  ),
                  'UPDATE_CONTEXT_FIELD',
                ),
                guard(
                  h(
                    'button',
                    {
                      type: 'button',
                      class: 'link danger',
                      'aria-label': `Delete context field ${contextField.name}`,
                      onclick: () => remove(contextField),
                    },
                    'Delete',
                  ),
                  'DELETE_CONTEXT_FIELD',
                ),
              ),
            ),
          ),
        ),
      ),
    )
  }

  /** @param {ContextField} contextField */
  async function edit(contextField) {
    if (!(await editDialog(contextField))) return
    replace(notice)
    announce(`Context field ${contextField.name} saved.`)
    await load()
  }

  /** @param {ContextField} contextField */
  async function remove(contextField) {
    const sure = await confirmDialog({
      title: `Delete context field ${contextField.name}?`,
      body: 'Constraints that name it keep it; editors will no longer offer it. A field that strategies of active flags constrain on cannot be deleted.',
      confirm: 'Delete context field',
      danger: true,
    })
    if (sure)
      await runAction(
        notice,
        load,
        () => api('DELETE', `/context/${seg(contextField.name)}`),
        `Context field ${contextField.name} deleted.`,
      )
  }

  function createForm() {
    const name = h('input', { type: 'text', name: 'name', required: true, autocomplete: 'off' })
    const description = h('input', { type: 'text', name: 'description', autocomplete: 'off' })
    const stickiness = h('input', { type: 'checkbox', name: 'stickiness', id: uid('stickiness') })
    const legalValues = legalValueEditor([])
    const general = h('div')
    const form = h(
      'form',
      { novalidate: true },
      h(
        'div',
        { class: 'form-grid' },
        field('Name', name, { path: '/body/name', hint: 'URL-friendly, unique among the context fields' }),
        field('Description', description, { path: '/body/description' }),
      ),
      h('label', { class: 'check', for: stickiness.id }, stickiness, ' Sticky: rollouts may keep users in or out by this field'),
      legalValues.element,
      general,
      h(
        'div',
        { class: 'actions' },
        guard(h('button', { type: 'submit', class: 'primary' }, 'Create context field'), 'CREATE_CONTEXT_FIELD'),
      ),
    )
    form.addEventListener('submit', async (event) => {
      event.preventDefault()
      replace(general)
      try {
        const created = await api('POST', '/context', {
          name: name.value.trim(),
          description: description.value.trim() || null,
          stickiness: stickiness.checked,
          legalValues: legalValues.value(),
        })
        announce(`Context field ${created.name} created.`)
        form.reset()
        legalValues.clear()
        await load()
      } catch (error) {
        showFieldErrors(form, error instanceof ApiError ? error.details : [{ message: String(error) }], general)
      }
    })
    return form
  }

  await load()
}

/**
 * Edits a field's description, sort order, stickiness and legal values (PUT replaces them).
 * @param {ContextField} contextField
 * @returns {Promise<boolean>} whether it was saved
 */
function editDialog(contextField) {
  const description = h('input', { type: 'text', name: 'description', value: contextField.description ?? '', autocomplete: 'off' })
  const sortOrder = h('input', { type: 'number', name: 'sortOrder', step: 1, value: String(contextField.sortOrder) })
  const stickiness = h('input', { type: 'checkbox', name: 'stickiness', checked: contextField.stickiness, id: uid('stickiness') })
  const legalValues = legalValueEditor(contextField.legalValues)
  const general = h('div')
  const titleId = uid('dialog-title')
  const save = h('button', { type: 'submit', class: 'primary' }, 'Save context field')
  const form = h(
    'form',
    { method: 'dialog', novalidate: true },
    h('h2', { id: titleId }, `Context field ${contextField.name}`),
    h(
      'div',
      { class: 'form-grid' },
      field('Description', description, { path: '/body/description' }),
      field('Sort order', sortOrder, { path: '/body/sortOrder', hint: 'Lower comes first where fields are offered' }),
    ),
    h('label', { class: 'check', for: stickiness.id }, stickiness, ' Sticky: rollouts may keep users in or out by this field'),
    legalValues.element,
    general,
    h('div', { class: 'actions' }, h('button', { type: 'button', class: 'secondary', onclick: () => dialog.close() }, 'Cancel'), save),
  )
  const dialog = h('dialog', { class: 'dialog', 'aria-labelledby': titleId }, form)
  return openFormDialog({
    dialog,
    form,
    save,
    general,
    send: async () => {
      await api('PUT', `/context/${seg(contextField.name)}`, {
        description: description.value.trim() || null,
        // Left empty: kept. Not a whole number: the server says so beside the field.
        sortOrder: sortOrder.value === '' ? undefined : Number(sortOrder.value),
        stickiness: stickiness.checked,
        legalValues: legalValues.value(),
      })
      return true
    },
  })
}

/**
 * A field's legal values: a value and an optional description each, in order.
 * @param {LegalValue[]} initial
 */
function legalValueEditor(initial) {
  return rowList({
    initial: initial.map((legalValue) => ({ ...legalValue })),
    path: '/body/legalValues',
    legend: 'Legal values',
    list: h('ol', { class: 'plain' }),
    row: (legalValue, index, remove) => {
      const path = `/body/legalValues/${index}`
      const value = h('input', { type: 'text', name: 'legalValue', value: legalValue.value, autocomplete: 'off' })
      const description = h('input', {
        type: 'text',
        name: 'legalValueDescription',
        value: legalValue.description ?? '',
        autocomplete: 'off',
      })
      const element = rowElement(
        'li',
        'constraint',
        path,
        [
          field(`Legal value ${index + 1}`, value, { path: `${path}/value` }),
          field(`Legal value ${index + 1} description`, description, { path: `${path}/description` }),
        ],
        remove,
      )
      const read = () => {
        const text = description.value.trim()
        return text ? { value: value.value.trim(), description: text } : { value: value.value.trim() }
      }
      return { element, read }
    },
    blank: () => /** @type {LegalValue} */ ({ value: '' }),
    removeLabel: (index) => `Remove legal value ${index + 1}`,
    addText: 'Add legal value',
    empty: 'No legal values: constraints may use any value.',
    afterAdd: (list) => {
      const inputs = list.querySelectorAll('input[name="legalValue"]')
      const last = inputs[inputs.length - 1]
      if (last instanceof HTMLInputElement) last.focus()
    },
  })
}
