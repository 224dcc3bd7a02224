// @ts-check
/**
 * An integration's delivery log (`#/integrations/:id/deliveries`): each try to send an event,
 * newest first, with what came of it, and a button to send that event again now. The server
 * shows the log to admins only; anyone else is told so rather than shown a bare 403.
 */
import { api, ApiError } from '../api.js'
import { h, replace } from '../dom.js'
import { integrationName } from '../integration-form.js'
import { link } from '../router.js'
import { badge, errorBox, guard, loading, pageHeader } from '../ui.js'

/** @typedef {{ id?: number, type?: string, featureName?: string | null, project?: string | null, environment?: string | null }} DeliveredEvent */
/** @typedef {{ id: string, integrationId: number, createdAt: string, state: 'success' | 'failed' | 'successWithErrors', stateDetails: string, event: DeliveredEvent, details: Record<string, unknown> }} Attempt */

const PAGE_SIZE = 50
const STATE_BADGES = { success: 'ok', failed: 'bad', successWithErrors: 'warn' }

/** To the second: tries of one event are often seconds apart. @param {string} iso */
const formatTime = (iso) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' })

/** @param {import('../router.js').ViewContext} context */
export async function integrationDeliveriesView({ main, params, current }) {
  const id = params.id ?? ''
  const crumbs = /** @type {[string, string][]} */ ([
    ['Integrations', '#/integrations'],
    [`Integration #${id}`, link('integrations', id)],
  ])
  const notice = h('div', { 'aria-live': 'polite' })
  const results = h('div', null, loading())
  const refresh = h('button', { type: 'button', class: 'secondary', onclick: () => load() }, 'Refresh')
  let offset = 0
  replace(main, pageHeader('Delivery log', { crumbs, actions: [refresh] }), notice, results)

  async function load() {
    /** @type {[{ integrationEvents: Attempt[] }, { addons: import('../integration-form.js').Addon[], providers: import('../integration-form.js').Provider[] }]} */
    let loaded
    try {
      loaded = await Promise.all([
        api('GET', `/addons/${encodeURIComponent(id)}/events?limit=${PAGE_SIZE}&offset=${offset}`),
        api('GET', '/addons'),
      ])
    } catch (error) {
      if (!current()) return
      replace(
        results,
        error instanceof ApiError && error.status === 403
          ? h(
              'p',
              { class: 'alert warn', role: 'alert', 'data-forbidden': '' },
              'Only admins can read the delivery log: it shows where events were sent and what was sent. Reading it needs ADMIN.',
            )
          : errorBox(error),
      )
      refresh.disabled = true
      return
    }
    if (!current()) return
    const [{ integrationEvents: attempts }, { addons, providers }] = loaded
    const addon = addons.find((candidate) => String(candidate.id) === id)
    const subtitle = addon
      ? `${integrationName(
          addon,
          providers.find((provider) => provider.name === addon.provider),
        )}${addon.description ? `: ${addon.description}` : ''}. Each try to send an event, newest first; the newest 1,000 are kept.`
      : `Integration #${id} no longer exists.`
    replace(
      results,
      h('p', { class: 'subtitle' }, subtitle),
      attempts.length === 0 && offset === 0 ? h('p', { class: 'empty' }, 'Nothing sent yet.') : table(attempts),
      pager(attempts.length),
    )
  }

  /** @param {Attempt[]} attempts */
  function table(attempts) {
    return h(
      'table',
      { class: 'table' },
      h('caption', { class: 'visually-hidden' }, 'Delivery tries, newest first'),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          ['Time', 'State', 'Details', 'Event', 'Actions'].map((title) => h('th', { scope: 'col' }, title)),
        ),
      ),
      h(
        'tbody',
        null,
        attempts.map((attempt) =>
          h(
            'tr',
            { 'data-attempt': attempt.id, 'data-event-id': String(attempt.event.id ?? '') },
            h('td', null, h('time', { datetime: attempt.createdAt }, formatTime(attempt.createdAt))),
            h('td', { 'data-state': attempt.state }, badge(attempt.state, STATE_BADGES[attempt.state] ?? '')),
            h(
              'td',
              null,
              attempt.stateDetails,
              h(
                'details',
                null,
                h('summary', null, 'What was sent'),
                h('pre', { class: 'sent' }, JSON.stringify(attempt.details, null, 2)),
              ),
            ),
            h('td', null, eventSummary(attempt.event)),
            h('td', null, redeliverButton(attempt)),
          ),
        ),
      ),
    )
  }

  /** @param {Attempt} attempt */
  function redeliverButton(attempt) {
    const eventId = attempt.event.id
    if (eventId === undefined) return null
    return guard(
      h(
        'button',
        {
          type: 'button',
          class: 'secondary small',
          'aria-label': `Redeliver event ${eventId}`,
          onclick: async () => {
            try {
              /** @type {Attempt} */
              const again = await api('POST', `/addons/${encodeURIComponent(id)}/events/${eventId}/redeliver`)
              offset = 0
              await load()
              // The notice is a live region: this is read out too.
              const message = `Event ${eventId} sent again: ${again.state}. ${again.stateDetails}`
              replace(notice, h('p', { class: `alert ${again.state === 'failed' ? 'error' : 'success'}` }, message))
            } catch (error) {
              replace(notice, errorBox(error))
            }
          },
        },
        'Redeliver',
      ),
      'ADMIN',
    )
  }

  /** Newer and older pages of the log. @param {number} shown how many rows this page has */
  function pager(shown) {
    if (offset === 0 && shown < PAGE_SIZE) return null
    /** @param {number} next */
    const go = (next) => {
      offset = Math.max(0, next)
      void load()
    }
    return h(
      'nav',
      { class: 'pager', 'aria-label': 'Pages' },
      h('button', { type: 'button', class: 'secondary', disabled: offset === 0, onclick: () => go(offset - PAGE_SIZE) }, 'Newer'),
      h('span', { class: 'result-count' }, `Tries ${offset + 1}–${offset + shown}`),
      h('button', { type: 'button', class: 'secondary', disabled: shown < PAGE_SIZE, onclick: () => go(offset + PAGE_SIZE) }, 'Older'),
    )
  }

  await load()
}

/** The event's type, flag (linked to its page) and environment. @param {DeliveredEvent} event */
function eventSummary(event) {
  return [
    h('code', null, event.type ?? '?'),
    event.featureName
      ? [
          ' ',
          event.project
            ? h('a', { href: link('projects', event.project, 'features', event.featureName) }, event.featureName)
            : event.featureName,
        ]
      : null,
    event.environment ? ` in ${event.environment}` : null,
    h('p', { class: 'hint' }, `Event #${event.id ?? '?'}`),
  ]
}
