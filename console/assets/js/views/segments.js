// @ts-check
/** Segments: the list with their use, and a page to create or edit one with the constraint editor. */
import { api, ApiError } from '../api.js'
import { constraintEditor, describeConstraint } from '../constraint-editor.js'
import { announce, clearFieldErrors, confirmDialog, field, formatDate, h, replace, showFieldErrors } from '../dom.js'
import { link, navigate } from '../router.js'
import { can } from '../session.js'
import { errorBox, guard, loading, pageHeader, section } from '../ui.js'

/** @typedef {{ id: number, name: string, description: string | null, project?: string, constraints: import('../constraint-editor.js').Constraint[], usedInFeatures?: number, usedInProjects?: number, createdBy: string, createdAt: string }} Segment */

/** @param {import('../router.js').ViewContext} context */
export async function segmentsView({ main, current }) {
  const newButton = guard(
    h('button', { type: 'button', class: 'primary', onclick: () => navigate('#/segments/new') }, 'New segment'),
    'CREATE_SEGMENT',
  )
  replace(main, pageHeader('Segments', { actions: [newButton] }), loading())
  /** @type {{ segments: Segment[] }} */
  let answer
  try {
    answer = await api('GET', '/segments')
  } catch (error) {
    replace(main, pageHeader('Segments'), errorBox(error))
    return
  }
  if (!current()) return
  replace(
    main,
    pageHeader('Segments', { actions: [newButton], subtitle: 'Reusable sets of constraints that strategies take up.' }),
    answer.segments.length === 0
      ? h('p', { class: 'empty' }, 'No segments yet.')
      : h(
          'table',
          { class: 'table' },
          h('caption', { class: 'visually-hidden' }, 'Segments and where they are used'),
          h(
            'thead',
            null,
            h(
              'tr',
              null,
              ['Name', 'Project', 'Constraints', 'Used in', 'Created'].map((title) => h('th', { scope: 'col' }, title)),
            ),
          ),
          h(
            'tbody',
            null,
            answer.segments.map((segment) =>
              h(
                'tr',
                null,
                h(
                  'th',
                  { scope: 'row' },
                  h('a', { href: `#/segments/${segment.id}` }, segment.name),
                  segment.description ? h('p', { class: 'hint' }, segment.description) : null,
                ),
                h('td', null, segment.project ?? 'all projects'),
                h(
                  'td',
                  null,
                  segment.constraints.length === 0
                    ? '–'
                    : h(
                        'ul',
                        { class: 'plain' },
                        segment.constraints.map((constraint) => h('li', null, h('code', null, describeConstraint(constraint)))),
                      ),
                ),
                h(
                  'td',
                  null,
                  `${segment.usedInFeatures ?? 0} flag${segment.usedInFeatures === 1 ? '' : 's'} in ${segment.usedInProjects ?? 0} project${segment.usedInProjects === 1 ? '' : 's'}`,
                ),
                h('td', null, `${formatDate(segment.createdAt)} by ${segment.createdBy}`),
              ),
            ),
          ),
        ),
  )
}

/** @param {import('../router.js').ViewContext} context */
export async function segmentEditView({ main, params, current }) {
  const id = params.id
  const title = id ? 'Segment' : 'New segment'
  const crumbs = /** @type {[string, string][]} */ ([['Segments', '#/segments']])
  replace(main, pageHeader(title, { crumbs }), loading())
  /** @type {[Segment | undefined, { projects: { id: string, name: string }[] }, { strategies: { featureName: string, projectId: string, environment: string, strategyName: string }[] } | undefined]} */
  let loaded
  try {
    loaded = await Promise.all([
      id ? api('GET', `/segments/${encodeURIComponent(id)}`) : undefined,
      api('GET', '/projects'),
      id ? api('GET', `/segments/${encodeURIComponent(id)}/strategies`) : undefined,
    ])
  } catch (error) {
    if (current()) replace(main, pageHeader(title, { crumbs }), errorBox(error))
    return
  }
  if (!current()) return
  const [segment, { projects }, usage] = loaded
  const permission = segment ? 'UPDATE_SEGMENT' : 'CREATE_SEGMENT'
  const editable = can(permission) || can('UPDATE_PROJECT_SEGMENT')
  const name = h('input', { type: 'text', name: 'name', value: segment?.name ?? '', required: true, autocomplete: 'off' })
  const description = h('textarea', { name: 'description', rows: 2 })
  description.value = segment?.description ?? ''
  const project = h(
    'select',
    { name: 'project' },
    h('option', { value: '' }, 'All projects (global)'),
    projects.map((candidate) => h('option', { value: candidate.id, selected: candidate.id === segment?.project }, candidate.name)),
  )
  const constraints = constraintEditor(segment?.constraints ?? [])
  const general = h('div', { 'aria-live': 'polite' })
  const save = h('button', { type: 'submit', class: 'primary', disabled: !editable }, segment ? 'Save segment' : 'Create segment')
  const form = h(
    'form',
    { novalidate: true, class: 'card' },
    h(
      'div',
      { class: 'form-grid' },
      field('Name', name, { path: '/body/name' }),
      field('Project', project, { path: '/body/project', hint: 'A project segment can be used by that project’s flags only' }),
      field('Description', description, { path: '/body/description' }),
    ),
    constraints.element,
    general,
    h('div', { class: 'actions' }, editable ? save : guard(save, permission)),
  )
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    clearFieldErrors(form)
    replace(general)
    const body = {
      name: name.value,
      description: description.value || null,
      project: project.value || null,
      constraints: constraints.value(),
    }
    save.disabled = true
    try {
      if (segment) {
        await api('PUT', `/segments/${segment.id}`, body)
        announce(`Segment ${body.name} saved.`)
        replace(general, h('p', { class: 'alert success' }, 'Saved.'))
      } else {
        const created = await api('POST', '/segments', body)
        announce(`Segment ${created.name} created.`)
        navigate(`#/segments/${created.id}`)
      }
    } catch (error) {
      showFieldErrors(form, error instanceof ApiError ? error.details : [{ message: String(error) }], general)
    } finally {
      save.disabled = !editable
    }
  })
  const deleteButton = segment
    ? guard(
        h(
          'button',
          {
            type: 'button',
            class: 'danger',
            onclick: async () => {
              const sure = await confirmDialog({
                title: `Delete segment ${segment.name}?`,
                body: 'A segment that strategies use cannot be deleted.',
                confirm: 'Delete segment',
                danger: true,
              })
              if (!sure) return
              try {
                await api('DELETE', `/segments/${segment.id}`)
                announce(`Segment ${segment.name} deleted.`)
                navigate('#/segments')
              } catch (error) {
                replace(general, errorBox(error))
              }
            },
          },
          'Delete',
        ),
        'DELETE_SEGMENT',
      )
    : null
  replace(
    main,
    pageHeader(segment ? segment.name : title, { crumbs, actions: deleteButton ? [deleteButton] : [] }),
    form,
    usage
      ? section(
          'Used by',
          usage.strategies.length === 0
            ? h('p', { class: 'empty' }, 'No strategy uses this segment.')
            : h(
                'ul',
                null,
                usage.strategies.map((strategy) =>
                  h(
                    'li',
                    null,
                    h('a', { href: link('projects', strategy.projectId, 'features', strategy.featureName) }, strategy.featureName),
                    ` in ${strategy.environment} (${strategy.strategyName})`,
                  ),
                ),
              ),
        )
      : null,
  )
}
