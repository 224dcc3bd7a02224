// @ts-check
/** Small pieces every page uses: guarded controls, error boxes, headings, tables. */
import { ApiError } from './api.js'
import { announce, h, replace, showFieldErrors, uid } from './dom.js'
import { can } from './session.js'

/**
 * A control the caller may lack the permission for: shown disabled, naming the permission,
 * rather than hidden or left to fail with a 403.
 * @template {HTMLButtonElement | HTMLInputElement | HTMLSelectElement} T
 * @param {T} control
 * @param {string} permission
 * @returns {T | HTMLSpanElement}
 */
export function guard(control, permission) {
  if (can(permission)) return control
  control.disabled = true
  const note = h('small', { class: 'needs', id: uid('needs') }, `Needs ${permission}`)
  control.setAttribute('aria-describedby', note.id)
  control.title = `You need the ${permission} permission`
  return h('span', { class: 'guarded' }, control, note)
}

/**
 * The message of an error, for an alert box; a 403 names the missing permission.
 * @param {unknown} error
 */
export function errorMessage(error) {
  if (error instanceof ApiError) return error.message
  if (error instanceof Error) return `Pennon could not be reached (${error.message}).`
  return String(error)
}

/** @param {unknown} error */
export function errorBox(error) {
  return h('div', { class: 'alert error', role: 'alert' }, errorMessage(error))
}

/**
 * @param {string} title
 * @param {{ crumbs?: [string, string][], actions?: import('./dom.js').Child[], subtitle?: import('./dom.js').Child }} [options]
 */
export function pageHeader(title, options = {}) {
  return h(
    'header',
    { class: 'page-header' },
    options.crumbs?.length
      ? h(
          'nav',
          { 'aria-label': 'Breadcrumb', class: 'crumbs' },
          h(
            'ol',
            null,
            options.crumbs.map(([label, href]) => h('li', null, h('a', { href }, label))),
          ),
        )
      : null,
    h('div', { class: 'title-row' }, h('h1', null, title), h('div', { class: 'actions' }, options.actions ?? [])),
    options.subtitle ? h('p', { class: 'subtitle' }, options.subtitle) : null,
  )
}

export function loading() {
  return h('p', { class: 'loading', role: 'status' }, 'Loading…')
}

/**
 * A section with a heading level 2.
 * @param {string} title
 * @param {...import('./dom.js').Child} children
 */
export function section(title, ...children) {
  const id = uid('section')
  return h('section', { class: 'card', 'aria-labelledby': id }, h('h2', { id }, title), children)
}

/**
 * A switch: a button with role=switch (Space and Enter toggle it, as any button).
 * @param {{ label: string, checked: boolean, onchange: (next: boolean) => Promise<void> }} options
 */
export function toggleSwitch({ label, checked, onchange }) {
  const button = h(
    'button',
    { type: 'button', role: 'switch', class: 'switch', 'aria-checked': String(checked), 'aria-label': label },
    h('span', { class: 'track', 'aria-hidden': 'true' }, h('span', { class: 'thumb' })),
    h('span', { class: 'state', 'aria-hidden': 'true' }, checked ? 'On' : 'Off'),
  )
  button.addEventListener('click', async () => {
    const next = button.getAttribute('aria-checked') !== 'true'
    button.disabled = true
    try {
      await onchange(next)
    } finally {
      button.disabled = false
    }
  })
  return button
}

/** @param {string} text */
export function badge(text, kind = '') {
  return h('span', { class: `badge ${kind}`.trim() }, text)
}

/**
 * A copy-once secret: shown in a read-only field with a copy button. Invite and reset links use it
 * too, with their own label and note.
 * @param {string} secret
 * @param {{ label?: string, note?: import('./dom.js').Child }} [options]
 */
export function secretPanel(secret, { label = 'Secret', note = 'Copy this secret now: it is shown only this once.' } = {}) {
  const input = h('input', { type: 'text', readonly: true, value: secret, class: 'secret', 'aria-label': label })
  const status = h('span', { role: 'status', class: 'hint' })
  const copy = h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      onclick: async () => {
        try {
          await navigator.clipboard.writeText(secret)
        } catch {
          // Clipboard API refused (not a secure context): copy from the selected field instead.
          input.select()
          document.execCommand('copy')
        }
        status.textContent = 'Copied.'
      },
    },
    'Copy',
  )
  return h(
    'div',
    { class: 'alert success secret-panel', role: 'region', 'aria-label': `New ${label.toLowerCase()}` },
    h('p', null, h('strong', null, note)),
    h('div', { class: 'secret-row' }, input, copy, status),
  )
}

/**
 * Shows a form's modal dialog until it closes. Each submit runs `send` (the Save button disabled
 * meanwhile): true closes the dialog, false keeps it open (the form said what is wrong), and a
 * refusal puts the server's details beside the fields they name, the rest in `general`, the form
 * kept. Resolves whether something was saved.
 * @param {{ dialog: HTMLDialogElement, form: HTMLFormElement, save: HTMLButtonElement, general: HTMLElement, send: () => Promise<boolean> }} options
 * @returns {Promise<boolean>}
 */
export function openFormDialog({ dialog, form, save, general, send }) {
  return new Promise((resolve) => {
    // Settled in the task that hides the dialog (the browser fires `close` a task later): the page
    // never shows the dialog gone with its outcome not yet taken (as confirmDialog, dom.js).
    /** @param {boolean} saved */
    const settle = (saved) => {
      resolve(saved)
      dialog.close()
      dialog.remove()
    }
    form.addEventListener('submit', async (event) => {
      event.preventDefault()
      save.disabled = true
      try {
        if (await send()) settle(true)
      } catch (error) {
        showFieldErrors(form, error instanceof ApiError ? error.details : [{ message: String(error) }], general)
      } finally {
        save.disabled = false
      }
    })
    dialog.addEventListener('cancel', (event) => {
      event.preventDefault()
      settle(false)
    })
    dialog.addEventListener('close', () => settle(false))
    document.body.appendChild(dialog)
    dialog.showModal()
  })
}

/**
 * What a page's buttons do: runs `action`; on success clears `notice`, announces `done` and
 * reloads the page's data; a failure shows in `notice`.
 * @param {HTMLElement} notice
 * @param {() => Promise<unknown>} reload
 * @param {() => Promise<unknown>} action
 * @param {string} done
 */
export async function runAction(notice, reload, action, done) {
  try {
    await action()
    replace(notice)
    announce(done)
    await reload()
  } catch (error) {
    replace(notice, errorBox(error))
  }
}
