// @ts-check
/**
 * Adds or edits one activation strategy of a flag environment, in a modal dialog: the strategy,
 * its parameters (a flexible rollout's percentage, stickiness and group), constraints and segments.
 * The server's 400 details land beside the field they name.
 */
import { api } from './api.js'
import { needsChangeRequest } from './change-requests.js'
import { constraintEditor } from './constraint-editor.js'
import { field, h, uid } from './dom.js'
import { openFormDialog } from './ui.js'

/** @typedef {{ id: string, name: string, title: string | null, disabled: boolean, parameters: Record<string, string>, constraints: import('./constraint-editor.js').Constraint[], segments: number[], variants: unknown[], sortOrder: number }} Strategy */
/** @typedef {{ name: string, displayName: string | null, deprecated: boolean, parameters: { name: string, type: string, description: string, required: boolean }[] }} Definition */
/** @typedef {{ id: number, name: string, project?: string }} SegmentRef */

const STICKINESS = ['default', 'userId', 'sessionId', 'random']

/**
 * `onRefused` takes a save refused because the environment needs change requests: the dialog
 * closes and the page offers the change as a change request.
 * @param {{ place: string, flagName: string, project: string, environment: string, strategy?: Strategy, definitions: Definition[], segments: SegmentRef[], onRefused?: (error: unknown, change: { action: string, payload: unknown }) => void }} options
 * @returns {Promise<boolean>} whether a strategy was saved
 */
export function strategyDialog({ place, flagName, project, environment, strategy, definitions, segments, onRefused }) {
  const editing = strategy !== undefined
  const usable = definitions.filter((definition) => !definition.deprecated || definition.name === strategy?.name)
  const name = h(
    'select',
    { name: 'name' },
    usable.map((definition) =>
      h(
        'option',
        { value: definition.name, selected: definition.name === (strategy?.name ?? 'flexibleRollout') },
        definition.displayName ?? definition.name,
      ),
    ),
  )
  const title = h('input', { type: 'text', name: 'title', value: strategy?.title ?? '', autocomplete: 'off' })
  const paused = h('input', { type: 'checkbox', name: 'disabled', checked: strategy?.disabled === true })
  const parameterSlot = h('div', { class: 'parameters' })
  /** @type {() => Record<string, string>} */
  let readParameters = () => ({})
  const constraints = constraintEditor(strategy?.constraints ?? [], { project })
  const offered = segments.filter((segment) => segment.project === undefined || segment.project === project)
  const segmentBoxes = offered.map((segment) => ({
    segment,
    box: h('input', {
      type: 'checkbox',
      name: 'segment',
      value: String(segment.id),
      checked: strategy?.segments.includes(segment.id) === true,
    }),
  }))
  const general = h('div')

  function renderParameters() {
    const definition = usable.find((candidate) => candidate.name === name.value)
    const current = name.value === strategy?.name ? strategy.parameters : {}
    if (name.value === 'flexibleRollout') {
      const rollout = h('input', {
        type: 'range',
        min: 0,
        max: 100,
        step: 1,
        value: current.rollout ?? '100',
        'aria-label': 'Rollout slider',
      })
      const percent = h('input', { type: 'number', name: 'rollout', min: 0, max: 100, step: 1, value: current.rollout ?? '100' })
      rollout.addEventListener('input', () => {
        percent.value = rollout.value
      })
      percent.addEventListener('input', () => {
        rollout.value = percent.value
      })
      const stickiness = h(
        'select',
        { name: 'stickiness' },
        STICKINESS.map((value) => h('option', { value, selected: value === (current.stickiness ?? 'default') }, value)),
      )
      const groupId = h('input', { type: 'text', name: 'groupId', value: current.groupId ?? flagName, autocomplete: 'off' })
      const rolloutField = field('Rollout (%)', percent, {
        path: '/body/parameters/rollout',
        hint: 'Share of the users (by stickiness) who get the flag',
      })
      rolloutField.insertBefore(rollout, percent)
      parameterSlot.replaceChildren(
        h(
          'div',
          { class: 'form-grid' },
          rolloutField,
          field('Stickiness', stickiness, { path: '/body/parameters/stickiness', hint: 'What keeps a user in or out' }),
          field('Group id', groupId, { path: '/body/parameters/groupId', hint: 'Flags with the same group roll out to the same users' }),
        ),
      )
      readParameters = () => ({ rollout: percent.value, stickiness: stickiness.value, groupId: groupId.value.trim() })
      return
    }
    const inputs = (definition?.parameters ?? []).map((parameter) => {
      const value = current[parameter.name] ?? ''
      const control =
        parameter.type === 'boolean'
          ? h(
              'select',
              { name: parameter.name },
              ['false', 'true'].map((option) => h('option', { value: option, selected: option === (value || 'false') }, option)),
            )
          : parameter.type === 'list'
            ? h('textarea', { name: parameter.name, rows: 2, value })
            : h('input', {
                type: parameter.type === 'number' || parameter.type === 'percentage' ? 'number' : 'text',
                name: parameter.name,
                value,
                autocomplete: 'off',
              })
      const hint = [parameter.description, parameter.type === 'list' ? 'comma-separated' : '', parameter.required ? 'required' : '']
        .filter(Boolean)
        .join(' · ')
      return { parameter, control, element: field(parameter.name, control, { path: `/body/parameters/${parameter.name}`, hint }) }
    })
    parameterSlot.replaceChildren(
      inputs.length
        ? h(
            'div',
            { class: 'form-grid' },
            inputs.map((input) => input.element),
          )
        : h('p', { class: 'hint' }, 'This strategy has no parameters.'),
    )
    readParameters = () =>
      Object.fromEntries(inputs.filter((input) => input.control.value !== '').map((input) => [input.parameter.name, input.control.value]))
  }
  name.addEventListener('change', renderParameters)
  renderParameters()

  const titleId = uid('dialog-title')
  const save = h('button', { type: 'submit', class: 'primary' }, editing ? 'Save strategy' : 'Add strategy')
  const form = h(
    'form',
    { method: 'dialog', novalidate: true },
    h('h2', { id: titleId }, `${editing ? 'Edit' : 'Add'} a strategy in ${environment}`),
    h(
      'div',
      { class: 'form-grid' },
      field('Strategy', name, { path: '/body/name' }),
      field('Title (optional)', title, { path: '/body/title' }),
    ),
    parameterSlot,
    constraints.element,
    h(
      'fieldset',
      { 'data-path': '/body/segments' },
      h('legend', null, 'Segments'),
      h('p', { class: 'field-error', hidden: true }),
      segmentBoxes.length
        ? segmentBoxes.map(({ segment, box }) => h('label', { class: 'check' }, box, ` ${segment.name}`))
        : h('p', { class: 'hint' }, 'No segment can be used here yet: create one under Segments.'),
    ),
    h('label', { class: 'check' }, paused, ' Paused: keep the strategy but do not evaluate it'),
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
      const body = {
        name: name.value,
        title: title.value.trim() || null,
        disabled: paused.checked,
        parameters: readParameters(),
        constraints: constraints.value(),
        segments: segmentBoxes.filter(({ box }) => box.checked).map(({ segment }) => segment.id),
        // PUT replaces variants with what is sent: keep the ones the strategy has.
        ...(strategy ? { variants: strategy.variants } : {}),
      }
      try {
        if (strategy) await api('PUT', `${place}/strategies/${encodeURIComponent(strategy.id)}`, body)
        else await api('POST', `${place}/strategies`, body)
      } catch (error) {
        if (!onRefused || !needsChangeRequest(error)) throw error
        // Closed unsaved: the page shows the refusal with the offer.
        dialog.close()
        onRefused(
          error,
          strategy ? { action: 'updateStrategy', payload: { id: strategy.id, ...body } } : { action: 'addStrategy', payload: body },
        )
        return false
      }
      return true
    },
  })
}
