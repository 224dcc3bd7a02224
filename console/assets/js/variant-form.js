// @ts-check
/**
 * Edits a flag's variants in one environment, in a modal dialog: each variant's name, weight
 * (variable, or fixed in percent), stickiness, payload and overrides. The whole list is sent with
 * PUT …/variants; the server's 400 details land beside the field they name, the form kept.
 */
import { api } from './api.js'
import { needsChangeRequest } from './change-requests.js'
import { CONTEXT_FIELDS } from './constraint-editor.js'
import { clearFieldErrors, field, h, replace, showFieldErrors, uid } from './dom.js'
import { rowElement, rowList } from './row-list.js'
import { openFormDialog } from './ui.js'

/** @typedef {{ contextName: string, values: string[] }} Override */
/** @typedef {{ name: string, weight: number, weightType: string, stickiness: string, payload?: { type: string, value: string }, overrides?: Override[] }} Variant */

const TOTAL_WEIGHT = 1000
const STICKINESS = ['default', 'userId', 'sessionId']
const CUSTOM = 'custom'
// As the server takes them (variant-rules.ts).
const PAYLOAD_TYPES = ['string', 'json', 'csv', 'number']

/**
 * The weights the server will store: fixed ones kept, the rest of 1000 shared by the variable
 * ones, the first taking one more each (as variant-rules.ts), so the form shows them before saving.
 * @param {{ fix: boolean, weight: number }[]} rows
 */
export function spreadWeights(rows) {
  const fixedSum = rows.reduce((sum, row) => sum + (row.fix ? row.weight : 0), 0)
  const variable = rows.filter((row) => !row.fix).length
  const left = Math.max(0, TOTAL_WEIGHT - fixedSum)
  const share = variable === 0 ? 0 : Math.floor(left / variable)
  let remainder = variable === 0 ? 0 : left % variable
  return rows.map((row) => (row.fix ? row.weight : share + (remainder-- > 0 ? 1 : 0)))
}

/**
 * `onRefused` takes a save refused because the environment needs change requests: the dialog
 * closes and the page offers the change as a change request.
 * @param {{ place: string, environment: string, variants: Variant[], onRefused?: (error: unknown, change: { action: string, payload: unknown }) => void }} options
 * @returns {Promise<boolean>} whether the variants were saved
 */
export function variantsDialog({ place, environment, variants, onRefused }) {
  /** @type {{ read: () => { body: Record<string, unknown>, fix: boolean, weight: number, problems: { path: string, message: string }[] }, showWeight: (weight: number) => void }[]} */
  let rows = []
  const list = h('div', { class: 'variant-list' })
  const contextList = h(
    'datalist',
    { id: uid('context-names') },
    CONTEXT_FIELDS.map((name) => h('option', { value: name })),
  )
  /** @type {Variant[]} */
  let drafts = variants.map((variant) => ({
    ...variant,
    overrides: (variant.overrides ?? []).map((override) => ({ ...override, values: [...override.values] })),
  }))

  // Rows are rebuilt on add and remove (paths follow the index): read them back first.
  function sync() {
    drafts = rows.map((row) => {
      const { body, weight } = row.read()
      return /** @type {Variant} */ ({ ...body, weight })
    })
  }

  function render() {
    rows = []
    replace(
      list,
      drafts.map((variant, index) => variantRow(variant, index)),
    )
    if (drafts.length === 0) list.append(h('p', { class: 'empty' }, 'No variants: SDKs get the "disabled" variant while the flag is on.'))
    refreshWeights()
  }

  function refreshWeights() {
    const weights = spreadWeights(rows.map((row) => row.read()))
    for (const [index, row] of rows.entries()) row.showWeight(weights[index] ?? 0)
  }

  /**
   * @param {Variant} variant
   * @param {number} index
   */
  function variantRow(variant, index) {
    const path = `/body/${index}`
    const name = h('input', { type: 'text', name: 'name', value: variant.name, autocomplete: 'off', required: true })
    const weightType = h(
      'select',
      { name: 'weightType' },
      ['variable', 'fix'].map((value) =>
        h(
          'option',
          { value, selected: value === (variant.weightType === 'fix' ? 'fix' : 'variable') },
          value === 'fix' ? 'fixed' : 'variable',
        ),
      ),
    )
    const weight = h('input', {
      type: 'number',
      name: 'weight',
      min: 0,
      max: 100,
      step: 0.1,
      value: (variant.weight / 10).toFixed(1),
      inputmode: 'decimal',
    })
    const known = STICKINESS.includes(variant.stickiness)
    const stickiness = h(
      'select',
      { name: 'stickiness' },
      [...STICKINESS, CUSTOM].map((value) =>
        h('option', { value, selected: value === (known ? variant.stickiness : CUSTOM) }, value === CUSTOM ? 'custom field…' : value),
      ),
    )
    const customStickiness = h('input', {
      type: 'text',
      name: 'customStickiness',
      value: known ? '' : variant.stickiness,
      list: contextList.id,
      autocomplete: 'off',
    })
    const customField = field('Custom stickiness field', customStickiness, { hint: 'A context field, e.g. tenantId' })
    const payloadTypes =
      variant.payload && !PAYLOAD_TYPES.includes(variant.payload.type) ? [...PAYLOAD_TYPES, variant.payload.type] : PAYLOAD_TYPES
    const payloadType = h(
      'select',
      { name: 'payloadType' },
      h('option', { value: '' }, 'none'),
      payloadTypes.map((value) => h('option', { value, selected: value === variant.payload?.type }, value)),
    )
    const payloadValue = h('textarea', { name: 'payloadValue', rows: 2, spellcheck: 'false' })
    payloadValue.value = variant.payload?.value ?? ''
    const payloadField = field('Payload value', payloadValue, { path: `${path}/payload/value` })
    const overrides = overrideEditor(variant.overrides ?? [], `${path}/overrides`, contextList.id, index + 1)

    const showChoices = () => {
      weight.disabled = weightType.value !== 'fix'
      customField.hidden = stickiness.value !== CUSTOM
      payloadField.hidden = payloadType.value === ''
    }
    weightType.addEventListener('change', () => {
      showChoices()
      refreshWeights()
    })
    weight.addEventListener('input', refreshWeights)
    stickiness.addEventListener('change', showChoices)
    payloadType.addEventListener('change', showChoices)
    showChoices()

    rows.push({
      read: () => {
        const fix = weightType.value === 'fix'
        const percent = Number(weight.value)
        /** @type {{ path: string, message: string }[]} */
        const problems = []
        if (fix && (weight.value.trim() === '' || !Number.isFinite(percent) || percent < 0 || percent > 100)) {
          problems.push({ path: `${path}/weight`, message: 'A fixed weight is a percentage from 0 to 100.' })
        }
        // The API counts tenths of a percent.
        const tenths = Math.round(percent * 10)
        const sticky = stickiness.value === CUSTOM ? customStickiness.value.trim() : stickiness.value
        /** @type {Record<string, unknown>} */
        const body = { name: name.value.trim(), weightType: fix ? 'fix' : 'variable', stickiness: sticky || 'default' }
        if (fix) body.weight = Number.isFinite(tenths) ? tenths : 0
        if (payloadType.value) {
          body.payload = { type: payloadType.value, value: payloadValue.value }
          if (payloadType.value === 'json') {
            try {
              JSON.parse(payloadValue.value)
            } catch (error) {
              problems.push({
                path: `${path}/payload/value`,
                message: `Not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
              })
            }
          }
        }
        body.overrides = overrides.value()
        return { body, fix, weight: fix && Number.isFinite(tenths) ? tenths : 0, problems }
      },
      showWeight: (tenths) => {
        if (weight.disabled) weight.value = (tenths / 10).toFixed(1)
      },
    })
    return h(
      'fieldset',
      { class: 'variant', 'data-path': path },
      h('legend', null, `Variant ${index + 1}`),
      h('p', { class: 'field-error', hidden: true }),
      h(
        'div',
        { class: 'form-grid' },
        field('Name', name, { path: `${path}/name` }),
        field('Weight type', weightType, { path: `${path}/weightType`, hint: 'Variable variants share what the fixed ones leave' }),
        field('Weight (%)', weight, { path: `${path}/weight`, hint: 'One decimal: 33.3' }),
        field('Stickiness', stickiness, { path: `${path}/stickiness`, hint: 'What keeps a user on the same variant' }),
        customField,
        field('Payload type', payloadType, { path: `${path}/payload/type` }),
        payloadField,
      ),
      overrides.element,
      h(
        'button',
        {
          type: 'button',
          class: 'link danger',
          'aria-label': `Remove variant ${index + 1}`,
          onclick: () => {
            sync()
            drafts.splice(index, 1)
            render()
          },
        },
        'Remove variant',
      ),
    )
  }

  const general = h('div')
  const titleId = uid('dialog-title')
  const save = h('button', { type: 'submit', class: 'primary' }, 'Save variants')
  const form = h(
    'form',
    { method: 'dialog', novalidate: true },
    h('h2', { id: titleId }, `Variants in ${environment}`),
    contextList,
    // The list's own errors (the sum of fixed weights) name `/body`: they go to `general`, by the Save button.
    list,
    h(
      'button',
      {
        type: 'button',
        class: 'secondary small',
        onclick: () => {
          sync()
          drafts.push({ name: '', weight: 0, weightType: 'variable', stickiness: 'default', overrides: [] })
          render()
          const names = list.querySelectorAll('input[name="name"]')
          const last = names[names.length - 1]
          if (last instanceof HTMLInputElement) last.focus()
        },
      },
      'Add variant',
    ),
    general,
    h('div', { class: 'actions' }, h('button', { type: 'button', class: 'secondary', onclick: () => dialog.close() }, 'Cancel'), save),
  )
  const dialog = h('dialog', { class: 'dialog', 'aria-labelledby': titleId }, form)
  render()

  return openFormDialog({
    dialog,
    form,
    save,
    general,
    send: async () => {
      const read = rows.map((row) => row.read())
      const problems = read.flatMap((row) => row.problems)
      replace(general)
      // What the browser can tell (bad JSON, a weight out of range) is said without a request.
      if (problems.length) {
        showFieldErrors(form, problems, general)
        return false
      }
      clearFieldErrors(form)
      const body = read.map((row) => row.body)
      try {
        await api('PUT', `${place}/variants`, body)
      } catch (error) {
        if (!onRefused || !needsChangeRequest(error)) throw error
        dialog.close()
        onRefused(error, { action: 'patchVariant', payload: { variants: body } })
        return false
      }
      return true
    },
  })
}

/**
 * A variant's overrides: users whose context field has one of the values always get it.
 * @param {Override[]} initial
 * @param {string} basePath
 * @param {string} contextListId
 * @param {number} number the variant's, for labels
 * @returns {{ element: HTMLElement, value: () => Override[] }}
 */
function overrideEditor(initial, basePath, contextListId, number) {
  return rowList({
    initial,
    path: basePath,
    legend: 'Overrides',
    className: 'overrides-editor',
    list: h('div', { class: 'overrides' }),
    row: (override, index, remove) => {
      const path = `${basePath}/${index}`
      const contextName = h('input', {
        type: 'text',
        name: 'overrideContext',
        value: override.contextName,
        list: contextListId,
        autocomplete: 'off',
      })
      const values = h('textarea', { name: 'overrideValues', rows: 2, spellcheck: 'false' })
      values.value = override.values.join('\n')
      const element = rowElement(
        'div',
        'override',
        path,
        [
          field('Override context field', contextName, { path: `${path}/contextName` }),
          field('Override values', values, { path: `${path}/values`, hint: 'One value per line' }),
        ],
        remove,
      )
      const read = () => ({
        contextName: contextName.value.trim(),
        values: values.value
          .split('\n')
          .map((line) => line.trim())
          .filter(Boolean),
      })
      return { element, read }
    },
    blank: () => ({ contextName: 'userId', values: [] }),
    removeLabel: (index) => `Remove override ${index + 1} of variant ${number}`,
    removeText: 'Remove override',
    addText: 'Add override',
    addLabel: `Add override to variant ${number}`,
  })
}
