// @ts-check
import { api, seg } from '../api.js'
import { announce, field, formatDate, h, replace, showFieldErrors } from '../dom.js'
import { link, navigate } from '../router.js'
import { confirmDialog } from '../dom.js'
import { errorBox, guard, loading, pageHeader, section } from '../ui.js'

/** @param {import('../router.js').ViewContext} context */
export async function projectsView({ main, current }) {
  replace(main, pageHeader('Projects'), loading())
  /** @type {{ projects: { id: string, name: string, description: string | null, createdAt: string }[] }} */
  let answer
  try {
    answer = await api('GET', '/projects')
  } catch (error) {
    replace(main, pageHeader('Projects'), errorBox(error))
    return
  }
  if (!current()) return
  const rows = answer.projects.map((project) =>
    h(
      'tr',
      null,
      h('th', { scope: 'row' }, h('a', { href: link('projects', project.id) }, project.name)),
      h('td', null, h('code', null, project.id)),
      h('td', null, project.description ?? ''),
      h('td', null, formatDate(project.createdAt)),
      h(
        'td',
        { class: 'row-actions' },
        h('a', { href: link('projects', project.id, 'events') }, 'Events'),
        ' ',
        guard(
          h(
            'button',
            {
              type: 'button',
              class: 'danger small',
              'aria-label': `Delete project ${project.name}`,
              onclick: () => deleteProject(project.id, main),
            },
            'Delete',
          ),
          'DELETE_PROJECT',
        ),
      ),
    ),
  )
  replace(
    main,
    pageHeader('Projects'),
    h('div', { id: 'project-error' }),
    h(
      'table',
      { class: 'table' },
      h('caption', { class: 'visually-hidden' }, 'Projects'),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          ['Name', 'Id', 'Description', 'Created', 'Actions'].map((title) => h('th', { scope: 'col' }, title)),
        ),
      ),
      h('tbody', null, rows),
    ),
    section('New project', createProjectForm()),
  )
}

/**
 * @param {string} id
 * @param {HTMLElement} main
 */
async function deleteProject(id, main) {
  const confirmed = await confirmDialog({
    title: `Delete project ${id}?`,
    body: 'A project that still holds flags or segments cannot be deleted.',
    confirm: 'Delete project',
    danger: true,
  })
  if (!confirmed) return
  try {
    await api('DELETE', `/projects/${seg(id)}`)
    announce(`Project ${id} deleted.`)
    navigate('#/projects')
  } catch (error) {
    const slot = main.querySelector('#project-error')
    if (slot) replace(slot, errorBox(error))
  }
}

function createProjectForm() {
  const id = h('input', { type: 'text', name: 'id', required: true, autocomplete: 'off' })
  const name = h('input', { type: 'text', name: 'name', required: true, autocomplete: 'off' })
  const description = h('textarea', { name: 'description', rows: 2 })
  const general = h('div')
  const submit = guard(h('button', { type: 'submit', class: 'primary' }, 'Create project'), 'CREATE_PROJECT')
  const form = h(
    'form',
    { class: 'form-grid', novalidate: true },
    field('Id', id, { path: '/body/id', hint: 'URL-friendly: letters, digits, - _ . ~' }),
    field('Name', name, { path: '/body/name' }),
    field('Description', description, { path: '/body/description' }),
    general,
    h('div', { class: 'actions' }, submit),
  )
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    try {
      await api('POST', '/projects', { id: id.value.trim(), name: name.value.trim(), description: description.value || null })
      announce(`Project ${id.value} created.`)
      navigate(link('projects', id.value.trim()))
    } catch (error) {
      showFieldErrors(form, /** @type {any} */ (error).details ?? [{ message: String(error) }], general)
    }
  })
  return form
}
