// @ts-check
/**
 * DOM building without innerHTML: every text goes in as a text node, so nothing the API
 * returns can become markup. `h('button', { onclick, class: 'primary' }, 'Save')`.
 */

/** @typedef {Node | string | number | null | undefined | false | Child[]} Child */
/** @typedef {Record<string, unknown>} Attrs */

/**
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Attrs | null} [attrs]
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs, ...children) {
  const element = document.createElement(tag)
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue
    if (key.startsWith('on') && typeof value === 'function') {
      element.addEventListener(key.slice(2), /** @type {EventListener} */ (value))
    } else if (key === 'class') {
      element.className = String(value)
    } else if (key === 'value' || key === 'checked' || key === 'disabled' || key === 'selected' || key === 'indeterminate') {
      // Properties, not attributes: they hold the live state.
      Object.assign(element, { [key]: value })
    } else {
      element.setAttribute(key, value === true ? '' : String(value))
    }
  }
  append(element, children)
  return element
}

/**
 * @param {Node} parent
 * @param {Child[]} children
 */
export function append(parent, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue
    if (Array.isArray(child)) append(parent, child)
    else parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)))
  }
}

/**
 * Replaces the children of `parent`.
 * @param {Element} parent
 * @param {...Child} children
 */
export function replace(parent, ...children) {
  parent.replaceChildren()
  append(parent, children)
}

let uniqueId = 0
/** A document-unique id for label/aria wiring. @param {string} prefix */
export function uid(prefix) {
  uniqueId += 1
  return `${prefix}-${uniqueId}`
}

/** Says something to screen readers (and shows it briefly). @param {string} message */
export function announce(message) {
  const region = document.getElementById('announcer')
  if (!region) return
  region.textContent = ''
  // A fresh text node after a tick, so the same message twice is read twice.
  setTimeout(() => {
    region.textContent = message
  }, 20)
}

/** @param {string | null | undefined} iso */
export function formatDate(iso) {
  if (!iso) return '–'
  const date = new Date(iso)
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })
}

/**
 * A labelled form field: label, control, hint and an error slot the server's message goes to.
 * @param {string} label
 * @param {HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement} control
 * @param {{ hint?: string, path?: string }} [options] path: the `/body/...` path whose errors show here
 */
export function field(label, control, options = {}) {
  if (!control.id) control.id = uid('field')
  const error = h('p', { class: 'field-error', id: uid('error'), 'data-error-for': options.path ?? '', hidden: true })
  const hint = options.hint ? h('p', { class: 'hint', id: uid('hint') }, options.hint) : null
  const described = [hint?.id, error.id].filter(Boolean).join(' ')
  control.setAttribute('aria-describedby', described)
  return h('div', { class: 'field', 'data-path': options.path ?? '' }, h('label', { for: control.id }, label), control, hint, error)
}

/**
 * Shows each error detail next to the field whose `data-path` it names (the closest prefix);
 * what matches no field goes to `fallback`. Returns how many went to fields.
 * @param {Element} form
 * @param {{ path?: string, message: string }[]} details
 * @param {Element} fallback
 */
export function showFieldErrors(form, details, fallback) {
  clearFieldErrors(form)
  const fields = [...form.querySelectorAll('[data-path]')].filter((element) => element.getAttribute('data-path'))
  const unplaced = []
  let placed = 0
  for (const detail of details) {
    const path = detail.path ?? ''
    let best = /** @type {Element | undefined} */ (undefined)
    let bestLength = -1
    for (const candidate of fields) {
      const candidatePath = candidate.getAttribute('data-path') ?? ''
      if ((path === candidatePath || path.startsWith(`${candidatePath}/`)) && candidatePath.length > bestLength) {
        best = candidate
        bestLength = candidatePath.length
      }
    }
    const slot = best?.querySelector(':scope > .field-error')
    if (best && slot instanceof HTMLElement) {
      slot.hidden = false
      slot.textContent = slot.textContent ? `${slot.textContent} ${detail.message}` : detail.message
      best.querySelector('input, select, textarea')?.setAttribute('aria-invalid', 'true')
      placed += 1
    } else {
      unplaced.push(detail.message)
    }
  }
  if (unplaced.length > 0) replace(fallback, h('p', { role: 'alert', class: 'error' }, unplaced.join(' ')))
  const first = form.querySelector('[aria-invalid="true"]')
  if (first instanceof HTMLElement) first.focus()
  return placed
}

/** @param {Element} form */
export function clearFieldErrors(form) {
  for (const slot of form.querySelectorAll('.field-error')) {
    if (slot instanceof HTMLElement) {
      slot.hidden = true
      slot.textContent = ''
    }
  }
  for (const control of form.querySelectorAll('[aria-invalid]')) control.removeAttribute('aria-invalid')
}

/**
 * A modal dialog; resolves with true when confirmed. Escape or Cancel resolve false.
 * @param {{ title: string, body: Child, confirm: string, danger?: boolean, confirmDisabled?: boolean }} options
 * @returns {Promise<boolean>}
 */
export function confirmDialog({ title, body, confirm, danger = false, confirmDisabled = false }) {
  return new Promise((resolve) => {
    const titleId = uid('dialog-title')
    const dialog = h(
      'dialog',
      { 'aria-labelledby': titleId, class: 'dialog' },
      h('h2', { id: titleId }, title),
      h('div', { class: 'dialog-body' }, body),
      h(
        'div',
        { class: 'actions' },
        h('button', { type: 'button', class: 'secondary', onclick: () => settle(false) }, 'Cancel'),
        h(
          'button',
          { type: 'button', class: danger ? 'danger' : 'primary', disabled: confirmDisabled, onclick: () => settle(true) },
          confirm,
        ),
      ),
    )
    // Settled at the user's action, in the same task that hides the dialog: the browser fires
    // `close` a task later, and the page must not show the dialog gone with its answer not yet taken.
    /** @param {boolean} confirmed */
    function settle(confirmed) {
      resolve(confirmed)
      dialog.close()
      dialog.remove()
    }
    dialog.addEventListener('cancel', (event) => {
      event.preventDefault()
      settle(false)
    })
    // Closed any other way (a browser may close it after all): not confirmed.
    dialog.addEventListener('close', () => settle(false))
    document.body.appendChild(dialog)
    dialog.showModal()
  })
}
