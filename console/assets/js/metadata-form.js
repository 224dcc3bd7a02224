// @ts-check
/**
 * Dialogs that edit what a flag or a project is after its creation: a flag's description, type
 * (with its expected lifetime, from GET /feature-types), stale and impression data (PUT on the
 * flag); a project's name and description (PUT on the project). The server's 400 details land
 * beside their field, the form kept.
 */
import { api } from './api.js'
import { field, h, replace, uid } from './dom.js'
import { openFormDialog } from './ui.js'

/** @typedef {{ id: string, name: string, description: string, lifetimeDays: number | null }} FeatureType */

/**
 * A dialog with `fields`, titled `title`, whose Save sends `send()`.
 * @param {string} title
 * @param {string} saveLabel
 * @param {(Node | null)[]} fields
 * @param {() => Promise<unknown>} send
 * @returns {Promise<boolean>} whether it was saved
 */
function metadataDialog(title, saveLabel, fields, send) {
  const general = h('div')
  const titleId = uid('dialog-title')
  const save = h('button', { type: 'submit', class: 'primary' }, saveLabel)
  const form = h(
    'form',
    { method: 'dialog', novalidate: true },
    h('h2', { id: titleId }, title),
    h('div', { class: 'form-grid' }, fields),
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
      replace(general)
      await send()
      return true
    },
  })
}

/** @param {number | null} days */
export function lifetimeText(days) {
  return days === null ? 'permanent' : `${days} day${days === 1 ? '' : 's'}`
}

/**
 * @param {{ base: string, flag: { name: string, description: string | null, type: string, stale: boolean, impressionData: boolean }, types: FeatureType[] }} options
 * @returns {Promise<boolean>} whether the flag was saved
 */
export function flagMetadataDialog({ base, flag, types }) {
  const description = h('textarea', { name: 'description', rows: 3 }, flag.description ?? '')
  const type = h(
    'select',
    { name: 'type' },
    types.map((option) =>
      h(
        'option',
        { value: option.id, selected: option.id === flag.type },
        `${option.name} (expected lifetime: ${lifetimeText(option.lifetimeDays)})`,
      ),
    ),
  )
  const stale = h('input', { type: 'checkbox', name: 'stale', checked: flag.stale })
  const impressionData = h('input', { type: 'checkbox', name: 'impressionData', checked: flag.impressionData })
  return metadataDialog(
    `Edit ${flag.name}`,
    'Save flag',
    [
      field('Description', description, { path: '/body/description' }),
      field('Type', type, { path: '/body/type', hint: "A flag older than its type's expected lifetime is potentially stale." }),
      h(
        'div',
        { class: 'field', 'data-path': '/body/stale' },
        h('label', { class: 'check' }, stale, ' Stale: done its job, to be removed'),
        h('p', { class: 'field-error', hidden: true }),
      ),
      h(
        'div',
        { class: 'field', 'data-path': '/body/impressionData' },
        h('label', { class: 'check' }, impressionData, ' Impression data: SDKs emit an event on each evaluation'),
        h('p', { class: 'field-error', hidden: true }),
      ),
    ],
    () =>
      api('PUT', base, { description: description.value, type: type.value, stale: stale.checked, impressionData: impressionData.checked }),
  )
}

/**
 * @param {{ path: string, project: { id: string, name: string, description: string | null } }} options
 * @returns {Promise<boolean>} whether the project was saved
 */
export function projectDialog({ path, project }) {
  const name = h('input', { name: 'name', value: project.name, required: true, maxlength: 255 })
  const description = h('textarea', { name: 'description', rows: 3 }, project.description ?? '')
  return metadataDialog(
    `Edit project ${project.id}`,
    'Save project',
    [field('Name', name, { path: '/body/name' }), field('Description', description, { path: '/body/description' })],
    () => api('PUT', path, { name: name.value, description: description.value }),
  )
}
