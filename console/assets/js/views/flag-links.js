// @ts-check
/**
 * A flag's links (to its ticket, a dashboard, the code) on its page: each opens in a new tab; with
 * UPDATE_FEATURE one is added, edited in a dialog and deleted after a confirmation. They come with
 * the flag's read (`links`); the server checks each address (http or https) and title.
 */
import { api, seg } from '../api.js'
import { announce, confirmDialog, field, h, replace, showFieldErrors, uid } from '../dom.js'
import { can } from '../session.js'
import { guard, openFormDialog, section } from '../ui.js'

/** @typedef {{ id: string, url: string, title: string | null, feature: string }} FlagLink */

/** What a link is called on the page: its title, else its address. @param {FlagLink} flagLink */
const labelOf = (flagLink) => flagLink.title || flagLink.url

/**
 * The body the server takes: an empty title is none.
 * @param {HTMLInputElement} url
 * @param {HTMLInputElement} title
 */
const bodyOf = (url, title) => ({ url: url.value.trim(), title: title.value.trim() === '' ? null : title.value.trim() })

/** @param {{ url?: string, title?: string | null }} [initial] */
function linkFields(initial = {}) {
  const url = h('input', {
    type: 'url',
    name: 'url',
    value: initial.url ?? '',
    autocomplete: 'off',
    placeholder: 'https://…',
    required: true,
  })
  const title = h('input', { type: 'text', name: 'title', value: initial.title ?? '', autocomplete: 'off' })
  return {
    url,
    title,
    fields: [
      field('Link address', url, { path: '/body/url', hint: 'http or https' }),
      field('Link title', title, { path: '/body/title', hint: 'Optional: shown instead of the address' }),
    ],
  }
}

/**
 * @param {{ base: string, name: string, flagLink: FlagLink }} options
 * @returns {Promise<boolean>} whether it was saved
 */
function editDialog({ base, name, flagLink }) {
  const { url, title, fields } = linkFields(flagLink)
  const general = h('div')
  const titleId = uid('dialog-title')
  const save = h('button', { type: 'submit', class: 'primary' }, 'Save link')
  const form = h(
    'form',
    { method: 'dialog', novalidate: true },
    h('h2', { id: titleId }, `Edit a link of ${name}`),
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
      await api('PUT', `${base}/link/${seg(flagLink.id)}`, bodyOf(url, title))
      return true
    },
  })
}

/**
 * @param {{ base: string, name: string, links: FlagLink[], act: (action: () => Promise<unknown>, done: string) => Promise<void>, reload: () => Promise<void> }} options
 *   base: the flag's path under /api/admin
 */
export function linkSection({ base, name, links, act, reload }) {
  const allowed = can('UPDATE_FEATURE')
  const list =
    links.length === 0
      ? h('p', { class: 'empty' }, 'No links.')
      : h(
          'ul',
          { class: 'links', 'aria-label': `Links of ${name}` },
          links.map((flagLink) => {
            const label = labelOf(flagLink)
            // The server keeps only http and https addresses; anything else is shown, never followed.
            const safe = /^https?:\/\//i.test(flagLink.url)
            return h(
              'li',
              { 'data-link-id': flagLink.id },
              safe ? h('a', { href: flagLink.url, target: '_blank', rel: 'noopener noreferrer' }, label) : h('span', null, label),
              flagLink.title ? h('span', { class: 'hint' }, ` ${flagLink.url}`) : null,
              ' ',
              h(
                'span',
                { class: 'row-actions' },
                guard(
                  h(
                    'button',
                    {
                      type: 'button',
                      class: 'secondary small',
                      'aria-label': `Edit link ${label}`,
                      onclick: async () => {
                        if (await editDialog({ base, name, flagLink })) {
                          announce(`Link ${label} saved.`)
                          await reload()
                        }
                      },
                    },
                    'Edit',
                  ),
                  'UPDATE_FEATURE',
                ),
                guard(
                  h(
                    'button',
                    {
                      type: 'button',
                      class: 'danger small',
                      'aria-label': `Delete link ${label}`,
                      onclick: async () => {
                        const sure = await confirmDialog({
                          title: `Delete the link ${label}?`,
                          body: `${name} no longer links to ${flagLink.url}.`,
                          confirm: 'Delete link',
                          danger: true,
                        })
                        if (sure) await act(() => api('DELETE', `${base}/link/${seg(flagLink.id)}`), `Link ${label} deleted.`)
                      },
                    },
                    'Delete',
                  ),
                  'UPDATE_FEATURE',
                ),
              ),
            )
          }),
        )

  const { url, title, fields } = linkFields()
  url.disabled = !allowed
  title.disabled = !allowed
  const general = h('div')
  const form = h(
    'form',
    { class: 'form-grid', novalidate: true },
    fields,
    general,
    h('div', { class: 'actions' }, guard(h('button', { type: 'submit', class: 'secondary small' }, 'Add link'), 'UPDATE_FEATURE')),
  )
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    try {
      const body = bodyOf(url, title)
      await api('POST', `${base}/link`, body)
      announce(`Link ${body.title ?? body.url} added to ${name}.`)
      await reload()
    } catch (error) {
      showFieldErrors(form, /** @type {any} */ (error).details ?? [{ message: String(error) }], general)
    }
  })
  return section('Links', list, form)
}
