// @ts-check
/**
 * What the searched lists share (all flags, the event log): their state kept in the address, so a
 * reload or a shared link shows the same page, and the Previous / Next bar under a page.
 */
import { h, replace } from './dom.js'

/**
 * Writes `state` into the hash's query (values equal to their default left out), without a new
 * history entry: Back leaves the list rather than stepping through each keystroke.
 * @param {string} path like `#/flags`
 * @param {Record<string, string | number>} state
 * @param {Record<string, string | number>} defaults
 */
export function keepInAddress(path, state, defaults) {
  const kept = new URLSearchParams()
  for (const [key, value] of Object.entries(state)) if (value !== '' && value !== defaults[key]) kept.set(key, String(value))
  history.replaceState(null, '', `${path}${kept.size ? `?${kept}` : ''}`)
}

/** The page number in an address: 0 for anything but a whole number ≥ 1. @param {string | null} value */
export function pageOf(value) {
  const page = Number(value ?? '0')
  return Number.isInteger(page) && page > 0 ? page : 0
}

/**
 * `1–50 of 10,000 flags`, or `noun`'s empty sentence.
 * @param {{ page: number, size: number, shown: number, total: number, noun: string }} options
 */
export function rangeText({ page, size, shown, total, noun }) {
  const first = page * size + 1
  const last = page * size + shown
  return `${first.toLocaleString()}–${last.toLocaleString()} of ${total.toLocaleString()} ${noun}${total === 1 ? '' : 's'}`
}

/**
 * Previous, `Page 2 of 200`, Next.
 * @param {{ page: number, total: number, size: number, go: (page: number) => void }} options
 */
export function pager({ page, total, size, go }) {
  const pages = Math.max(1, Math.ceil(total / size))
  return h(
    'nav',
    { class: 'pager', 'aria-label': 'Pages' },
    h('button', { type: 'button', class: 'secondary', disabled: page === 0, onclick: () => go(page - 1) }, 'Previous'),
    h('span', null, `Page ${(page + 1).toLocaleString()} of ${pages.toLocaleString()}`),
    h('button', { type: 'button', class: 'secondary', disabled: page + 1 >= pages, onclick: () => go(page + 1) }, 'Next'),
  )
}

/**
 * Calls `then` once typing paused for `ms` (a search box asks the server once per pause, not per key).
 * @param {HTMLInputElement} input
 * @param {(value: string) => void} then
 */
export function debounced(input, then, ms = 250) {
  let timer = 0
  input.addEventListener('input', () => {
    clearTimeout(timer)
    timer = window.setTimeout(() => then(input.value.trim()), ms)
  })
}

/**
 * A filter's select: "Any …" and the value from the address until the real choices arrive.
 * @param {string} name
 * @param {string} any
 * @param {string} current
 */
export function choice(name, any, current) {
  const select = h(
    'select',
    { name },
    h('option', { value: '' }, any),
    current ? h('option', { value: current, selected: true }, current) : null,
  )
  /** @param {[string, string][]} options value and label */
  const fill = (options) => {
    // What is chosen now: the address's value, or one picked before the choices arrived.
    const chosen = select.value
    const values = new Set(options.map(([value]) => value))
    // A value no longer offered stays selectable, so the filter still says what the list shows.
    if (chosen && !values.has(chosen)) options.push([chosen, chosen])
    replace(
      select,
      h('option', { value: '' }, any),
      options.map(([value, label]) => h('option', { value, selected: value === chosen }, label)),
    )
  }
  return { select, fill }
}

/**
 * A column header that sorts the list by `key`: ascending first, a second click descending; back to
 * the first page either way, then `reload`.
 * @param {{ sortBy: string, sortOrder: string, page: number }} state
 * @param {string} key
 * @param {string} label
 * @param {() => void} reload
 */
export function sortableHeader(state, key, label, reload) {
  const active = state.sortBy === key
  return h(
    'th',
    { scope: 'col', 'aria-sort': active ? (state.sortOrder === 'asc' ? 'ascending' : 'descending') : 'none' },
    h(
      'button',
      {
        type: 'button',
        class: 'sort',
        onclick: () => {
          state.sortOrder = active && state.sortOrder === 'asc' ? 'desc' : 'asc'
          state.sortBy = key
          state.page = 0
          reload()
        },
      },
      label,
      h('span', { 'aria-hidden': 'true' }, active ? (state.sortOrder === 'asc' ? ' ▲' : ' ▼') : ''),
    ),
  )
}
