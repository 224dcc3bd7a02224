// @ts-check
/**
 * A project's flags: the server pages, sorts, searches and filters by tag (GET
 * …/features?offset&limit&query&sortBy&sortOrder&tag), so a project of 10,000 flags renders one
 * page of 50 rows, each with its tags; tabs show the active ones, the stale and potentially stale
 * ones (`stale=true`, to clean up), and the archived ones. Below them, its environments.
 */
import { api, seg } from '../api.js'
import { announce, confirmDialog, field, formatDate, h, replace, showFieldErrors } from '../dom.js'
import { sortableHeader } from '../paging.js'
import { link, navigate } from '../router.js'
import { projectDialog } from '../metadata-form.js'
import { badge, errorBox, guard, loading, pageHeader, section } from '../ui.js'
import { projectEnvironments } from './project-environments.js'
import { changeRequestSettings } from './change-request-settings.js'

export const PAGE_SIZE = 50
const FLAG_TYPES = ['release', 'experiment', 'operational', 'kill-switch', 'permission', 'sunset']

/** @typedef {{ name: string, description: string | null, type: string, project: string, stale: boolean, potentiallyStale: boolean, createdAt: string, archived: boolean, tags: { value: string, type: string }[] }} Flag */
/** @typedef {'active' | 'stale' | 'archived'} Tab */

/** @param {import('../router.js').ViewContext} context */
export async function projectView({ main, params, query, current }) {
  const projectId = params.projectId ?? ''
  const state = {
    query: query.get('query') ?? '',
    sortBy: query.get('sortBy') ?? 'name',
    sortOrder: query.get('sortOrder') === 'desc' ? 'desc' : 'asc',
    page: Math.max(0, Number(query.get('page') ?? '0') || 0),
    /** @type {Tab} */
    tab: query.get('archived') === 'true' ? 'archived' : query.get('stale') === 'true' ? 'stale' : 'active',
    get archived() {
      return this.tab === 'archived'
    },
    tag: query.get('tag') ?? '',
  }
  const editProject = async () => {
    try {
      /** @type {{ projects: { id: string, name: string, description: string | null }[] }} */
      const { projects } = await api('GET', '/projects')
      const project = projects.find((candidate) => candidate.id === projectId)
      if (project && (await projectDialog({ path: `/projects/${seg(projectId)}`, project }))) announce(`Project ${projectId} saved.`)
    } catch (error) {
      results.prepend(errorBox(error))
    }
  }
  const header = pageHeader(`Project ${projectId}`, {
    crumbs: [['Projects', '#/projects']],
    actions: [
      guard(h('button', { type: 'button', class: 'secondary', onclick: editProject }, 'Edit project'), 'UPDATE_PROJECT'),
      // The flag search across projects, with this one chosen: more filters (type, state) and sorts.
      h('a', { href: `#/flags?${new URLSearchParams({ project: projectId })}`, class: 'button secondary' }, 'Search all flags'),
      h('a', { href: link('projects', projectId, 'events'), class: 'button secondary' }, 'Event log'),
      h('a', { href: link('projects', projectId, 'change-requests'), class: 'button secondary' }, 'Change requests'),
    ],
  })
  const results = h('div', { class: 'results' }, loading())
  const status = h('p', { class: 'result-count', role: 'status' })
  const search = h('input', { type: 'search', name: 'query', value: state.query, autocomplete: 'off', placeholder: 'Part of a flag name' })
  /** @type {[Tab, string][]} */
  const tabNames = [
    ['active', 'Active'],
    ['stale', 'Stale and potentially stale'],
    ['archived', 'Archived'],
  ]
  const tabs = h(
    'div',
    { class: 'tabs', role: 'group', 'aria-label': 'Which flags' },
    tabNames.map(([tab, label]) =>
      h('button', { type: 'button', class: 'tab', 'aria-pressed': String(state.tab === tab), onclick: () => setTab(tab) }, label),
    ),
  )
  // Any tag that exists (type:value, as the filter takes it); filled once the tags are read.
  const tagFilter = h(
    'select',
    { name: 'tag' },
    h('option', { value: '' }, 'Any tag'),
    state.tag ? h('option', { value: state.tag, selected: true }, state.tag) : null,
  )
  tagFilter.addEventListener('change', () => {
    state.tag = tagFilter.value
    state.page = 0
    void load()
  })
  api('GET', '/tags')
    .then((/** @type {{ tags: { type: string, value: string }[] }} */ { tags }) => {
      const values = tags.map((tag) => `${tag.type}:${tag.value}`)
      const options = [...new Set([...values, ...(state.tag ? [state.tag] : [])])].map((value) =>
        h('option', { value, selected: value === state.tag }, value),
      )
      tagFilter.replaceChildren(h('option', { value: '' }, 'Any tag'), ...options)
    })
    .catch(() => {})
  replace(
    main,
    header,
    h('div', { class: 'toolbar' }, tabs, field('Search flags', search), field('Tag', tagFilter)),
    status,
    results,
    section('New flag', createFlagForm(projectId)),
    projectEnvironments(projectId, current),
    changeRequestSettings(projectId, current),
  )

  /** @param {Tab} tab */
  function setTab(tab) {
    state.tab = tab
    state.page = 0
    for (const [index, button] of [...tabs.children].entries()) button.setAttribute('aria-pressed', String(tabNames[index]?.[0] === tab))
    void load()
  }

  let timer = 0
  search.addEventListener('input', () => {
    clearTimeout(timer)
    timer = window.setTimeout(() => {
      state.query = search.value.trim()
      state.page = 0
      void load()
    }, 150)
  })

  let request = 0
  async function load() {
    request += 1
    const mine = request
    // The address keeps the page state (reload, share, back), without a new history entry.
    const kept = new URLSearchParams()
    if (state.query) kept.set('query', state.query)
    if (state.sortBy !== 'name') kept.set('sortBy', state.sortBy)
    if (state.sortOrder !== 'asc') kept.set('sortOrder', state.sortOrder)
    if (state.page > 0) kept.set('page', String(state.page))
    if (state.archived) kept.set('archived', 'true')
    if (state.tab === 'stale') kept.set('stale', 'true')
    if (state.tag) kept.set('tag', state.tag)
    history.replaceState(null, '', `${link('projects', projectId)}${kept.size ? `?${kept}` : ''}`)

    const asked = new URLSearchParams({
      offset: String(state.page * PAGE_SIZE),
      limit: String(PAGE_SIZE),
      sortBy: state.sortBy,
      sortOrder: state.sortOrder,
    })
    if (state.query) asked.set('query', state.query)
    if (state.archived) asked.set('archived', 'true')
    if (state.tab === 'stale') asked.set('stale', 'true')
    if (state.tag) asked.set('tag', state.tag)
    const started = performance.now()
    // Flags with open change requests get a badge; read alongside, and left out if it fails.
    /** @type {Promise<Set<string>>} */
    const pending = api('GET', `/projects/${seg(projectId)}/change-requests/pending`)
      .then(
        (/** @type {{ features: { name: string }[] }[]} */ requests) =>
          new Set(requests.flatMap((request) => request.features.map((feature) => feature.name))),
      )
      .catch(() => new Set())
    /** @type {{ features: Flag[], total: number }} */
    let answer
    /** @type {Set<string>} */
    let pendingFlags
    try {
      answer = await api('GET', `/projects/${seg(projectId)}/features?${asked}`)
      pendingFlags = await pending
    } catch (error) {
      if (mine === request && current()) replace(results, errorBox(error))
      return
    }
    if (mine !== request || !current()) return
    const fetched = performance.now()
    replace(results, flagTable(answer.features, pendingFlags))
    const pages = Math.max(1, Math.ceil(answer.total / PAGE_SIZE))
    const first = answer.total === 0 ? 0 : state.page * PAGE_SIZE + 1
    const last = state.page * PAGE_SIZE + answer.features.length
    status.textContent =
      answer.total === 0
        ? state.query || state.tag
          ? `No ${state.archived ? 'archived ' : ''}flag matches${state.query ? ` “${state.query}”` : ''}${state.tag ? ` with tag ${state.tag}` : ''}.`
          : `No ${state.archived ? 'archived ' : ''}flags yet.`
        : `${first.toLocaleString()}–${last.toLocaleString()} of ${answer.total.toLocaleString()} ${state.archived ? 'archived ' : state.tab === 'stale' ? 'stale or potentially stale ' : ''}flag${answer.total === 1 ? '' : 's'}`
    results.append(
      h(
        'nav',
        { class: 'pager', 'aria-label': 'Pages' },
        h(
          'button',
          {
            type: 'button',
            class: 'secondary',
            disabled: state.page === 0,
            onclick: () => {
              state.page -= 1
              void load()
            },
          },
          'Previous',
        ),
        h('span', null, `Page ${state.page + 1} of ${pages.toLocaleString()}`),
        h(
          'button',
          {
            type: 'button',
            class: 'secondary',
            disabled: state.page + 1 >= pages,
            onclick: () => {
              state.page += 1
              void load()
            },
          },
          'Next',
        ),
      ),
    )
    const rendered = performance.now()
    // Read by the browser test (and visible in any profiler): server time vs. rendering time.
    performance.measure('pennon:flags-fetch', { start: started, end: fetched })
    performance.measure('pennon:flags-render', { start: fetched, end: rendered })
    results.setAttribute('data-loaded', String(request))
  }

  /** @param {Flag[]} flags @param {Set<string>} pendingFlags those with open change requests */
  function flagTable(flags, pendingFlags) {
    /** @param {string} key @param {string} label */
    const sortable = (key, label) => sortableHeader(state, key, label, () => void load())
    return h(
      'table',
      { class: 'table flags' },
      h('caption', { class: 'visually-hidden' }, `${state.archived ? 'Archived' : 'Active'} flags of ${projectId}; column headers sort`),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          sortable('name', 'Name'),
          sortable('type', 'Type'),
          sortable('createdAt', 'Created'),
          h('th', { scope: 'col' }, state.tab === 'active' ? 'Description' : 'Actions'),
        ),
      ),
      h(
        'tbody',
        null,
        flags.map((flag) =>
          h(
            'tr',
            null,
            h(
              'th',
              { scope: 'row' },
              h('a', { href: link('projects', projectId, 'features', flag.name) }, flag.name),
              flag.stale ? [' ', badge('stale', 'warn')] : flag.potentiallyStale ? [' ', badge('potentially stale', 'warn')] : null,
              flag.tags.map((tag) => [' ', badge(`${tag.type}: ${tag.value}`)]),
              pendingFlags.has(flag.name) ? [' ', badge('pending changes', 'warn')] : null,
            ),
            h('td', null, badge(flag.type)),
            h('td', null, formatDate(flag.createdAt)),
            h(
              'td',
              null,
              state.tab === 'archived' ? archivedActions(flag.name) : state.tab === 'stale' ? staleActions(flag) : (flag.description ?? ''),
            ),
          ),
        ),
      ),
    )
  }

  /** @param {Flag} flag */
  function staleActions(flag) {
    const stale = !flag.stale
    return guard(
      h(
        'button',
        {
          type: 'button',
          class: 'secondary small',
          'aria-label': `${stale ? 'Mark' : 'Unmark'} ${flag.name} stale`,
          onclick: async () => {
            await run(
              () => api('POST', `/projects/${seg(projectId)}/stale`, { features: [flag.name], stale }),
              `${flag.name} ${stale ? 'marked' : 'no longer'} stale.`,
            )
          },
        },
        stale ? 'Mark stale' : 'Not stale',
      ),
      'UPDATE_FEATURE',
    )
  }

  /** @param {string} name */
  function archivedActions(name) {
    return h(
      'span',
      { class: 'row-actions' },
      guard(
        h(
          'button',
          {
            type: 'button',
            class: 'secondary small',
            'aria-label': `Revive ${name}`,
            onclick: async () => {
              await run(() => api('POST', `/projects/${seg(projectId)}/revive`, { features: [name] }), `${name} revived.`)
            },
          },
          'Revive',
        ),
        'UPDATE_FEATURE',
      ),
      ' ',
      guard(
        h(
          'button',
          {
            type: 'button',
            class: 'danger small',
            'aria-label': `Delete ${name}`,
            onclick: async () => {
              const sure = await confirmDialog({
                title: `Delete ${name} for good?`,
                body: 'The flag and its strategies are removed. Its events stay in the log.',
                confirm: 'Delete flag',
                danger: true,
              })
              if (sure) await run(() => api('POST', `/projects/${seg(projectId)}/delete`, { features: [name] }), `${name} deleted.`)
            },
          },
          'Delete',
        ),
        'DELETE_FEATURE',
      ),
    )
  }

  /** @param {() => Promise<unknown>} action @param {string} done */
  async function run(action, done) {
    try {
      await action()
      announce(done)
      await load()
    } catch (error) {
      results.prepend(errorBox(error))
    }
  }

  await load()
}

/** @param {string} projectId */
function createFlagForm(projectId) {
  const name = h('input', { type: 'text', name: 'name', required: true, autocomplete: 'off' })
  const type = h(
    'select',
    { name: 'type' },
    FLAG_TYPES.map((value) => h('option', { value }, value)),
  )
  const description = h('textarea', { name: 'description', rows: 2 })
  const general = h('div')
  const form = h(
    'form',
    { class: 'form-grid', novalidate: true },
    field('Name', name, { path: '/body/name', hint: 'URL-friendly, unique across all projects' }),
    field('Type', type, { path: '/body/type' }),
    field('Description', description, { path: '/body/description' }),
    general,
    h('div', { class: 'actions' }, guard(h('button', { type: 'submit', class: 'primary' }, 'Create flag'), 'CREATE_FEATURE')),
  )
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    try {
      const flag = await api('POST', `/projects/${seg(projectId)}/features`, {
        name: name.value.trim(),
        type: type.value,
        description: description.value || null,
      })
      announce(`Flag ${flag.name} created.`)
      navigate(link('projects', projectId, 'features', flag.name))
    } catch (error) {
      showFieldErrors(form, /** @type {any} */ (error).details ?? [{ message: String(error) }], general)
    }
  })
  return form
}
