// @ts-check
/**
 * The event log: the instance's, a project's or a flag's, through the event search (GET
 * /search/events), newest first, a page of 50 at a time, each change shown as a diff of
 * preData → data. Filters: text, flag, project, type, person (GET /event-creators) and a date
 * range; they and the page live in the address, so a reload or a shared link shows the same
 * events. While the first page is shown and the tab is visible it is read again every few
 * seconds, so new events appear live (no open connection per viewer).
 */
import { api, ApiError } from '../api.js'
import { announce, field, formatDate, h, replace, uid } from '../dom.js'
import { diffLines } from '../json-diff.js'
import { choice, debounced, keepInAddress, pageOf, pager, rangeText } from '../paging.js'
import { link } from '../router.js'
import { can } from '../session.js'
import { errorBox, pageHeader } from '../ui.js'
import { revertControl } from './revert.js'

export { diffLines }

export const POLL_MS = 3000
export const PAGE_SIZE = 50
const DAY = /^\d{4}-\d{2}-\d{2}$/

/** @typedef {{ id: number, type: string, createdBy: string, createdAt: string, data: unknown, preData: unknown, featureName: string | null, project: string | null, environment: string | null }} AuditEvent */

/**
 * @param {AuditEvent} event
 * @param {boolean} fresh
 * @param {import('../dom.js').Child} [control] what can be done with it (a flag's history: Revert)
 */
function eventItem(event, fresh, control = null) {
  const lines = diffLines(event.preData, event.data)
  return h(
    'li',
    { class: `event${fresh ? ' fresh' : ''}`, 'data-event-id': event.id, 'data-event-type': event.type },
    h(
      'div',
      { class: 'event-head' },
      h('span', { class: 'event-type' }, event.type),
      control,
      event.featureName && event.project
        ? h('a', { href: link('projects', event.project, 'features', event.featureName) }, event.featureName)
        : null,
      event.environment ? h('span', { class: 'badge' }, event.environment) : null,
      h(
        'span',
        { class: 'event-meta' },
        `#${event.id} · ${formatDate(event.createdAt)} · by ${event.createdBy}${event.project ? ` · project ${event.project}` : ''}`,
      ),
    ),
    lines.length
      ? h(
          'ul',
          { class: 'diff', 'aria-label': 'Change' },
          lines.map((line) => h('li', { class: line.kind }, line.text)),
        )
      : null,
  )
}

/** @param {import('../router.js').ViewContext} context */
export async function eventsView({ main, params, query, onLeave, current }) {
  const { projectId, name } = params
  const title = name ? `History of ${name}` : projectId ? `Events of ${projectId}` : 'Event log'
  /** @type {[string, string][]} */
  const crumbs = projectId
    ? [
        ['Projects', '#/projects'],
        [projectId, link('projects', projectId)],
      ]
    : []
  if (name && projectId) crumbs.push([name, link('projects', projectId, 'features', name)])
  const here =
    name && projectId
      ? link('projects', projectId, 'features', name, 'events')
      : projectId
        ? link('projects', projectId, 'events')
        : '#/events'
  const day = (/** @type {string} */ key) => (DAY.test(query.get(key) ?? '') ? (query.get(key) ?? '') : '')
  const state = {
    query: query.get('query') ?? '',
    feature: name ? '' : (query.get('feature') ?? ''),
    project: projectId ? '' : (query.get('project') ?? ''),
    type: query.get('type') ?? '',
    createdBy: /^\d+$/.test(query.get('createdBy') ?? '') ? (query.get('createdBy') ?? '') : '',
    from: day('from'),
    to: day('to'),
    page: pageOf(query.get('page')),
  }
  const defaults = { query: '', feature: '', project: '', type: '', createdBy: '', from: '', to: '', page: 0 }

  const live = h('span', { class: 'live', role: 'status' }, 'Live')
  const list = h('ol', { class: 'events', 'aria-label': 'Events, newest first' })
  const status = h('p', { class: 'result-count' })
  const paging = h('div')
  // A flag's history offers to revert its changes; what goes wrong shows here.
  const notice = h('div', { class: 'notice' })

  const text = h('input', { type: 'search', name: 'query', value: state.query, autocomplete: 'off', placeholder: 'Text in the change' })
  const feature = h('input', { type: 'search', name: 'feature', value: state.feature, autocomplete: 'off', placeholder: 'Its exact name' })
  const project = choice('project', 'Any project', state.project)
  // Typed, with the known types offered: Pennon's own (feature-link-added…) are typed in full.
  const typeChoices = h('datalist', { id: uid('event-types') })
  const type = h('input', {
    type: 'search',
    name: 'type',
    value: state.type,
    autocomplete: 'off',
    list: typeChoices.id,
    placeholder: 'Like feature-created',
  })
  const person = choice('createdBy', 'Anyone', state.createdBy)
  const from = h('input', { type: 'date', name: 'from', value: state.from })
  const to = h('input', { type: 'date', name: 'to', value: state.to })
  // The choices come from their own lists; the events do not wait for them.
  if (!projectId) {
    api('GET', '/projects')
      .then((/** @type {{ projects: { id: string }[] }} */ { projects }) => project.fill(projects.map(({ id }) => [id, id])))
      .catch(() => {})
  }
  api('GET', '/event-creators')
    .then((/** @type {{ id: number, name: string }[]} */ creators) =>
      person.fill(creators.map((creator) => [String(creator.id), creator.name])),
    )
    .catch(() => {})
  // The types offered: those the integrations can be told to send.
  api('GET', '/addons')
    .then((/** @type {{ providers: { events: string[] }[] }} */ { providers }) =>
      replace(
        typeChoices,
        [...new Set(providers.flatMap((provider) => provider.events))].sort().map((value) => h('option', { value })),
      ),
    )
    .catch(() => {})

  /** @param {'query' | 'feature' | 'project' | 'type' | 'createdBy' | 'from' | 'to'} key @param {string} value */
  const set = (key, value) => {
    state[key] = value
    state.page = 0
    newest = 0
    void load()
  }
  debounced(text, (value) => set('query', value))
  debounced(feature, (value) => set('feature', value))
  project.select.addEventListener('change', () => set('project', project.select.value))
  debounced(type, (value) => set('type', value))
  person.select.addEventListener('change', () => set('createdBy', person.select.value))
  // A date input says nothing until its date is whole.
  from.addEventListener('change', () => set('from', DAY.test(from.value) ? from.value : ''))
  to.addEventListener('change', () => set('to', DAY.test(to.value) ? to.value : ''))

  replace(
    main,
    pageHeader(title, { crumbs, actions: [live] }),
    h(
      'div',
      { class: 'toolbar filters', role: 'search', 'aria-label': 'Events' },
      field('Search events', text),
      name ? null : field('Flag', feature),
      projectId ? null : field('Project', project.select),
      field('Event type', type),
      typeChoices,
      field('Person', person.select),
      field('From', from, { hint: 'That day and later (UTC)' }),
      field('To', to, { hint: 'That day and earlier (UTC)' }),
    ),
    !can('ADMIN') && !name ? h('p', { class: 'alert warn' }, 'Without ADMIN, only events that belong to a project are shown.') : null,
    notice,
    status,
    list,
    paging,
  )
  /** @param {AuditEvent} event */
  const controlOf = (event) => (name ? revertControl(event, { notice, reverted: () => load() }) : null)

  // The newest event shown on the first page: a later read marks what came since as fresh.
  let newest = 0
  let request = 0
  let timer = 0
  /** @param {boolean} [polled] a live re-read: changes only what changed */
  async function load(polled = false) {
    request += 1
    const mine = request
    if (!polled) {
      keepInAddress(here, state, defaults)
      showLive()
    }
    const asked = new URLSearchParams({ offset: String(state.page * PAGE_SIZE), limit: String(PAGE_SIZE) })
    if (state.query) asked.set('query', state.query)
    if (name) asked.set('feature', `IS:${name}`)
    else if (state.feature) asked.set('feature', `IS:${state.feature}`)
    if (projectId) asked.set('project', `IS:${projectId}`)
    else if (state.project) asked.set('project', `IS:${state.project}`)
    if (state.type) asked.set('type', `IS:${state.type}`)
    if (state.createdBy) asked.set('createdBy', `IS:${state.createdBy}`)
    if (state.from) asked.set('from', `IS:${state.from}`)
    if (state.to) asked.set('to', `IS:${state.to}`)
    /** @type {{ events: AuditEvent[], total: number }} */
    let answer
    try {
      answer = await api('GET', `/search/events?${asked}`)
    } catch (error) {
      if (mine !== request || !current()) return
      replace(list, errorBox(error))
      replace(paging)
      status.textContent = ''
      if (error instanceof ApiError && (error.status === 403 || error.status === 401)) stop()
      return
    }
    if (mine !== request || !current()) return
    if (answer.events.length === 0 && answer.total > 0 && state.page > 0) {
      state.page = Math.ceil(answer.total / PAGE_SIZE) - 1
      return load()
    }
    const top = answer.events[0]?.id ?? 0
    // Polled and nothing new: the page stays as it is (a diff being read is not redrawn).
    if (polled && top === newest) return
    const fresh = polled && newest !== 0 ? answer.events.filter((event) => event.id > newest) : []
    const freshIds = new Set(fresh.map((event) => event.id))
    replace(
      list,
      answer.events.length === 0
        ? h(
            'li',
            { class: 'empty' },
            Object.values(state).some((value) => value !== '' && value !== 0) ? 'No event matches these filters.' : 'No events yet.',
          )
        : answer.events.map((event) => eventItem(event, freshIds.has(event.id), controlOf(event))),
    )
    if (fresh.length) announce(`${fresh.length} new event${fresh.length === 1 ? '' : 's'}: ${fresh.map((event) => event.type).join(', ')}`)
    if (state.page === 0) newest = top
    status.textContent =
      answer.total === 0
        ? ''
        : rangeText({ page: state.page, size: PAGE_SIZE, shown: answer.events.length, total: answer.total, noun: 'event' })
    replace(
      paging,
      answer.total > PAGE_SIZE
        ? pager({
            page: state.page,
            total: answer.total,
            size: PAGE_SIZE,
            go: (page) => {
              state.page = page
              void load()
            },
          })
        : null,
    )
    list.setAttribute('data-loaded', String(request))
  }

  /** Later pages hold still: new events would shift them under the reader. */
  function showLive() {
    if (document.visibilityState !== 'visible') return
    live.classList.toggle('paused', state.page > 0)
    live.textContent = state.page > 0 ? 'Live on the first page' : 'Live'
  }
  function start() {
    showLive()
    clearInterval(timer)
    timer = window.setInterval(() => {
      if (state.page === 0) void load(true)
    }, POLL_MS)
  }
  function stop() {
    clearInterval(timer)
    live.classList.add('paused')
    live.textContent = 'Paused while hidden'
  }
  // A hidden tab does not poll; it catches up as soon as it is shown again.
  const onVisibility = () => {
    if (document.visibilityState === 'visible') {
      if (state.page === 0) void load(true)
      start()
    } else {
      stop()
    }
  }
  document.addEventListener('visibilitychange', onVisibility)
  onLeave(() => {
    clearInterval(timer)
    document.removeEventListener('visibilitychange', onVisibility)
  })
  await load()
  if (document.visibilityState === 'visible') start()
  else stop()
}
