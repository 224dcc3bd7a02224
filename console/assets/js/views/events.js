// @ts-check
/**
 * The event log: the last 100 events, a project's or a flag's, newest first, each change shown
 * as a diff of preData → data. It follows new events live by polling the existing reads every
 * few seconds while the tab is visible (no new server route, and the server answers a repeated
 * read from memory while nothing changed); a project's whole history is read again only when the
 * instance's newest event moved.
 */
import { api, ApiError, seg } from '../api.js'
import { announce, formatDate, h, replace } from '../dom.js'
import { link } from '../router.js'
import { can } from '../session.js'
import { errorBox, pageHeader } from '../ui.js'
import { diffLines } from '../json-diff.js'
import { revertControl } from './revert.js'

export { diffLines }

export const POLL_MS = 3000
/** A project's full history can be long: the page shows its newest events. */
const SHOWN = 200

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
export async function eventsView({ main, params, onLeave, current }) {
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
  const path = name ? `/events/${seg(name)}` : projectId ? `/events?project=${seg(projectId)}` : '/events'
  // Project and instance reads need ADMIN; a flag's history is open to every admin-API credential.
  if (!name && !can('ADMIN')) {
    replace(
      main,
      pageHeader(title, { crumbs }),
      h(
        'p',
        { class: 'alert warn' },
        'Reading the event log of a project or of the instance needs ADMIN. A flag’s history (on its page) is open to you.',
      ),
    )
    return
  }
  const live = h('span', { class: 'live', role: 'status' }, 'Live')
  const list = h('ol', { class: 'events', 'aria-label': 'Events, newest first' })
  const status = h('p', { class: 'result-count' })
  // A flag's history offers to revert its changes; what goes wrong shows here.
  const notice = h('div', { class: 'notice' })
  replace(main, pageHeader(title, { crumbs, actions: [live] }), notice, status, list)
  /** @param {AuditEvent} event */
  const controlOf = (event) => (name ? revertControl(event, { notice, reverted: () => poll() }) : null)

  let newest = 0
  let timer = 0
  let busy = false
  let lastProbe = -1
  async function poll() {
    if (busy) return
    busy = true
    try {
      // A project's history is read whole: ask first whether any event at all was written since
      // (the instance's last 100 are a small read), and read the project again only then.
      if (projectId && !name) {
        /** @type {{ events: AuditEvent[] }} */
        const probe = await api('GET', '/events')
        const top = probe.events[0]?.id ?? 0
        if (top === lastProbe) return
        lastProbe = top
      }
      /** @type {{ events: AuditEvent[], totalEvents: number }} */
      const answer = await api('GET', path)
      if (!current()) return
      const top = answer.events[0]?.id ?? 0
      if (top !== newest) {
        const first = newest === 0
        const fresh = answer.events.filter((event) => !first && event.id > newest)
        replace(
          list,
          answer.events.slice(0, SHOWN).map((event) => eventItem(event, !first && event.id > newest, controlOf(event))),
        )
        if (fresh.length)
          announce(`${fresh.length} new event${fresh.length === 1 ? '' : 's'}: ${fresh.map((event) => event.type).join(', ')}`)
        newest = top
      }
      status.textContent = `${answer.totalEvents.toLocaleString()} event${answer.totalEvents === 1 ? '' : 's'}${answer.events.length > SHOWN ? `, the newest ${SHOWN} shown` : ''}`
      if (answer.events.length === 0) replace(list, h('li', { class: 'empty' }, 'No events yet.'))
    } catch (error) {
      if (current()) replace(list, errorBox(error))
      if (error instanceof ApiError && (error.status === 403 || error.status === 401)) stop()
    } finally {
      busy = false
    }
  }
  function start() {
    live.classList.remove('paused')
    live.textContent = 'Live'
    clearInterval(timer)
    timer = window.setInterval(() => {
      void poll()
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
      void poll()
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
  await poll()
  if (document.visibilityState === 'visible') start()
  else stop()
}
