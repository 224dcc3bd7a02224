// @ts-check
/**
 * An editable list of rows in a fieldset: a context field's legal values, a strategy definition's
 * parameters, a variant's overrides. Every row's inputs are read back before an add or a removal
 * draws the list again, so what was typed survives it.
 */
import { h, replace } from './dom.js'

/**
 * @template T
 * @typedef {object} RowListOptions
 * @property {T[]} initial              the rows to start with (the list keeps its own copy of the array)
 * @property {string} path              the fieldset's `data-path`: where the server's errors about the list show
 * @property {string} legend
 * @property {HTMLElement} list         the element the rows go in
 * @property {(item: T, index: number, remove: HTMLButtonElement) => { element: HTMLElement, read: () => T }} row
 *   draws one row, with the remove button made for it somewhere inside, and reads it back
 * @property {() => T} blank            the row an add appends
 * @property {(index: number) => string} removeLabel  the remove button's accessible name
 * @property {string} [removeText]      its text (default "Remove")
 * @property {string} addText
 * @property {string} [addLabel]        the add button's accessible name, when its text is not enough
 * @property {string} [empty]           what an empty list says, as an `li` (so with an `ol` or `ul` list)
 * @property {string} [className]       the fieldset's class
 * @property {(list: HTMLElement) => void} [afterAdd]  after an add has drawn the list (to focus the new row)
 */

/**
 * @template T
 * @param {RowListOptions<T>} options
 * @returns {{ element: HTMLElement, value: () => T[], clear: () => void }}
 */
export function rowList(options) {
  const { list } = options
  let items = [...options.initial]
  /** @type {(() => T)[]} */
  let readers = []
  const sync = () => {
    items = readers.map((read) => read())
  }

  function render() {
    readers = []
    replace(
      list,
      items.map((item, index) => {
        const remove = h(
          'button',
          {
            type: 'button',
            class: 'link danger',
            'aria-label': options.removeLabel(index),
            onclick: () => {
              sync()
              items.splice(index, 1)
              render()
            },
          },
          options.removeText ?? 'Remove',
        )
        const row = options.row(item, index, remove)
        readers.push(row.read)
        return row.element
      }),
    )
    if (items.length === 0 && options.empty !== undefined) list.append(h('li', { class: 'empty' }, options.empty))
  }

  render()
  const element = h(
    'fieldset',
    { class: options.className, 'data-path': options.path },
    h('legend', null, options.legend),
    h('p', { class: 'field-error', hidden: true }),
    list,
    h(
      'button',
      {
        type: 'button',
        class: 'secondary small',
        'aria-label': options.addLabel,
        onclick: () => {
          sync()
          items.push(options.blank())
          render()
          options.afterAdd?.(list)
        },
      },
      options.addText,
    ),
  )
  return {
    element,
    value: () => {
      sync()
      return items
    },
    clear: () => {
      items = []
      render()
    },
  }
}

/**
 * One row: where the server's errors about it show (`data-path`), its fields in a grid, and what
 * follows them (the remove button, a checkbox).
 * @param {'li' | 'div'} tag
 * @param {string} className
 * @param {string} path
 * @param {HTMLElement[]} fields
 * @param {...HTMLElement} after
 */
export function rowElement(tag, className, path, fields, ...after) {
  return h(
    tag,
    { class: className, 'data-path': path },
    h('p', { class: 'field-error', hidden: true }),
    h('div', { class: 'form-grid' }, fields),
    after,
  )
}
