// @ts-check
/**
 * A flag's tags on its page: each one with a Remove button, and a form that adds one (a type
 * from the tag types, and a value; the server creates the tag if it does not exist yet).
 */
import { api, seg } from '../api.js'
import { announce, field, h, showFieldErrors } from '../dom.js'
import { can } from '../session.js'
import { guard, section } from '../ui.js'

/** @typedef {{ type: string, value: string, color: string | null }} FlagTag */
/** @typedef {{ name: string, description: string | null }} TagType */

/**
 * @param {{ name: string, tags: FlagTag[], tagTypes: TagType[], act: (action: () => Promise<unknown>, done: string) => Promise<void>, reload: () => Promise<void> }} options
 */
export function tagSection({ name, tags, tagTypes, act, reload }) {
  const path = `/features/${seg(name)}/tags`
  const allowed = can('UPDATE_FEATURE')
  const list =
    tags.length === 0
      ? h('p', { class: 'empty' }, 'No tags.')
      : h(
          'div',
          { class: 'row-actions', role: 'group', 'aria-label': `Tags of ${name}` },
          tags.map((tag) => {
            const label = `${tag.type}: ${tag.value}`
            return h(
              'span',
              { class: 'badge', 'data-tag': `${tag.type}:${tag.value}` },
              label,
              ' ',
              guard(
                h(
                  'button',
                  {
                    type: 'button',
                    class: 'link danger',
                    'aria-label': `Remove tag ${label}`,
                    onclick: () =>
                      act(() => api('DELETE', `${path}/${seg(tag.type)}/${seg(tag.value)}`), `Tag ${label} removed from ${name}.`),
                  },
                  '×',
                ),
                'UPDATE_FEATURE',
              ),
            )
          }),
        )

  const type = h(
    'select',
    { name: 'type', disabled: !allowed },
    tagTypes.map((tagType) => h('option', { value: tagType.name, selected: tagType.name === 'simple' }, tagType.name)),
  )
  const value = h('input', { type: 'text', name: 'value', autocomplete: 'off', disabled: !allowed })
  const general = h('div')
  const form = h(
    'form',
    { class: 'form-grid', novalidate: true },
    field('Tag type', type, { path: '/body/type' }),
    field('Tag value', value, { path: '/body/value', hint: '2–50 characters' }),
    general,
    h('div', { class: 'actions' }, guard(h('button', { type: 'submit', class: 'secondary small' }, 'Add tag'), 'UPDATE_FEATURE')),
  )
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    try {
      const tag = await api('POST', path, { type: type.value, value: value.value })
      announce(`Tag ${tag.type}: ${tag.value} added to ${name}.`)
      await reload()
    } catch (error) {
      showFieldErrors(form, /** @type {any} */ (error).details ?? [{ message: String(error) }], general)
    }
  })
  return section('Tags', list, form)
}
