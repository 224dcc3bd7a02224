// @ts-check
/**
 * Every project's flags, through the flag search (GET /search/features): one page of 50 at a
 * time (offset and limit; the total shown), searched by text as you type, filtered by project,
 * type, state and tag, sorted by name, creation or last sight. The filters and the page live in
 * the address, so a reload or a shared link shows the same list. Only the page asked for is ever
 * read, so 10,000 flags cost what 50 do.
 */
import { api } from '../api.js'
import { field, formatDate, h, replace } from '../dom.js'
import { choice, debounced, keepInAddress, pageOf, pager, rangeText, sortableHeader } from '../paging.js'
import { link } from '../router.js'
import { badge, errorBox, loading, pageHeader } from '../ui.js'

export const PAGE_SIZE = 50
const SORTS = ['name', 'createdAt', 'lastSeenAt']
const STATES = ['active', 'stale', 'potentially-stale']

/** @typedef {{ name: string, description: string | null, type: string, project: string, stale: boolean, createdAt: string | null, environments: { name: string, enabled: boolean, lastSeenAt: string | null }[], tags?: { type: string, value: string }[] }} FoundFlag */

const DEFAULTS = { query: '', project: '', type: '', state: '', tag: '', sortBy: 'name', sortOrder: 'asc', page: 0 }

/** When an SDK last reported the flag, in any environment. @param {FoundFlag} flag */
function lastSeen(flag) {
  let latest = /** @type {string | null} */ (null)
  for (const environment of flag.environments) {
    if (environment.lastSeenAt && (latest === null || environment.lastSeenAt > latest)) latest = environment.lastSeenAt
  }
  return latest
}

/** @param {import('../router.js').ViewContext} context */
export async function flagsView({ main, query, current }) {
  const state = {
    query: query.get('query') ?? '',
    project: query.get('project') ?? '',
    type: query.get('type') ?? '',
    state: STATES.includes(query.get('state') ?? '') ? (query.get('state') ?? '') : '',
    tag: query.get('tag') ?? '',
    sortBy: SORTS.includes(query.get('sortBy') ?? '') ? (query.get('sortBy') ?? 'name') : 'name',
    sortOrder: query.get('sortOrder') === 'desc' ? 'desc' : 'asc',
    page: pageOf(query.get('page')),
  }
  const results = h('div', { class: 'results' }, loading())
  const status = h('p', { class: 'result-count', role: 'status' })
  const search = h('input', {
    type: 'search',
    name: 'query',
    value: state.query,
    autocomplete: 'off',
    placeholder: 'Name or description',
  })
  const project = choice('project', 'Any project', state.project)
  const type = choice('type', 'Any type', state.type)
  const stateFilter = choice('state', 'Any state', state.state)
  stateFilter.fill([
    ['active', 'Active'],
    ['stale', 'Stale'],
    ['potentially-stale', 'Potentially stale'],
  ])
  const tag = choice('tag', 'Any tag', state.tag)
  // The choices come from their own lists; the flags do not wait for them.
  api('GET', '/projects')
    .then((/** @type {{ projects: { id: string, name: string }[] }} */ { projects }) =>
      project.fill(
        projects.map((candidate) => [candidate.id, candidate.name === candidate.id ? candidate.id : `${candidate.name} (${candidate.id})`]),
      ),
    )
    .catch(() => {})
  api('GET', '/feature-types')
    .then((/** @type {{ types: { id: string, name: string }[] }} */ { types }) =>
      type.fill(types.map((candidate) => [candidate.id, candidate.name])),
    )
    .catch(() => {})
  api('GET', '/tags')
    .then((/** @type {{ tags: { type: string, value: string }[] }} */ { tags }) =>
      tag.fill([...new Set(tags.map((candidate) => `${candidate.type}:${candidate.value}`))].map((value) => [value, value])),
    )
    .catch(() => {})
  /** @type {[HTMLSelectElement, 'project' | 'type' | 'state' | 'tag'][]} */
  const filters = [
    [project.select, 'project'],
    [type.select, 'type'],
    [stateFilter.select, 'state'],
    [tag.select, 'tag'],
  ]
  for (const [select, key] of filters) {
    select.addEventListener('change', () => {
      state[key] = select.value
      state.page = 0
      void load()
    })
  }
  debounced(search, (value) => {
    state.query = value
    state.page = 0
    void load()
  })
  replace(
    main,
    pageHeader('Flags', { subtitle: 'Every project’s flags, searched, filtered and sorted by the server.' }),
    h(
      'div',
      { class: 'toolbar filters', role: 'search', 'aria-label': 'Flags' },
      field('Search flags', search),
      field('Project', project.select),
      field('Type', type.select),
      field('State', stateFilter.select),
      field('Tag', tag.select),
    ),
    status,
    results,
  )

  let request = 0
  async function load() {
    request += 1
    const mine = request
    keepInAddress('#/flags', state, DEFAULTS)
    const asked = new URLSearchParams({
      offset: String(state.page * PAGE_SIZE),
      limit: String(PAGE_SIZE),
      sortBy: state.sortBy,
      sortOrder: state.sortOrder,
    })
    if (state.query) asked.set('query', state.query)
    if (state.project) asked.set('project', `IS:${state.project}`)
    if (state.type) asked.set('type', `IS:${state.type}`)
    if (state.state) asked.set('state', `IS:${state.state}`)
    if (state.tag) asked.set('tag', `INCLUDE:${state.tag}`)
    const started = performance.now()
    /** @type {{ features: FoundFlag[], total: number }} */
    let answer
    try {
      answer = await api('GET', `/search/features?${asked}`)
    } catch (error) {
      if (mine === request && current()) {
        status.textContent = ''
        replace(results, errorBox(error))
      }
      return
    }
    if (mine !== request || !current()) return
    // A page past the end (a shared link, flags archived since): show the last one instead.
    if (answer.features.length === 0 && answer.total > 0 && state.page > 0) {
      state.page = Math.ceil(answer.total / PAGE_SIZE) - 1
      return load()
    }
    const fetched = performance.now()
    const filtered = state.query || state.project || state.type || state.state || state.tag
    status.textContent =
      answer.total === 0
        ? filtered
          ? 'No flag matches these filters.'
          : 'No flags yet.'
        : rangeText({ page: state.page, size: PAGE_SIZE, shown: answer.features.length, total: answer.total, noun: 'flag' })
    replace(
      results,
      answer.total === 0 ? null : flagTable(answer.features),
      answer.total === 0
        ? null
        : pager({
            page: state.page,
            total: answer.total,
            size: PAGE_SIZE,
            go: (page) => {
              state.page = page
              void load()
            },
          }),
    )
    // Read by the browser test (and visible in any profiler): server time vs. rendering time.
    performance.measure('pennon:flag-search-fetch', { start: started, end: fetched })
    performance.measure('pennon:flag-search-render', { start: fetched, end: performance.now() })
    results.setAttribute('data-loaded', String(request))
  }

  /** @param {FoundFlag[]} flags */
  function flagTable(flags) {
    /** @param {string} key @param {string} label */
    const sortable = (key, label) => sortableHeader(state, key, label, () => void load())
    return h(
      'table',
      { class: 'table flags' },
      h('caption', { class: 'visually-hidden' }, 'Flags; the Name, Created and Last seen headers sort'),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          sortable('name', 'Name'),
          h('th', { scope: 'col' }, 'Project'),
          h('th', { scope: 'col' }, 'Type'),
          sortable('createdAt', 'Created'),
          sortable('lastSeenAt', 'Last seen'),
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
              h('a', { href: link('projects', flag.project, 'features', flag.name) }, flag.name),
              flag.stale ? [' ', badge('stale', 'warn')] : null,
              (flag.tags ?? []).map((tag) => [' ', badge(`${tag.type}: ${tag.value}`)]),
            ),
            h('td', null, h('a', { href: link('projects', flag.project) }, flag.project)),
            h('td', null, badge(flag.type)),
            h('td', null, formatDate(flag.createdAt)),
            h('td', null, formatDate(lastSeen(flag))),
          ),
        ),
      ),
    )
  }

  await load()
}
