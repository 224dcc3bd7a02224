// @ts-check
/**
 * A project's change requests (docs/change-requests.md): the list, newest first, and one request's
 * page: what its changes will do to each flag as it is now, its reviews and comments, and the moves
 * its state allows (send to review, approve, reject, apply, schedule, cancel). Who may make a move is
 * the server's to say: a refusal (an author approving their own request) is shown as it answers.
 * A Scheduled request is read again every second, so the page shows it applied (or its schedule
 * failed) without a reload.
 */
import { api, seg } from '../api.js'
import { changeDiff, describeChange, OPEN_STATES, stateBadge } from '../change-requests.js'
import { confirmDialog, field, formatDate, h, replace } from '../dom.js'
import { link } from '../router.js'
import { session } from '../session.js'
import { errorBox, guard, loading, pageHeader, runAction, section } from '../ui.js'
import { scheduleForm, scheduleNotice } from './change-request-schedule.js'

/** @typedef {import('../change-requests.js').ChangeRequest} ChangeRequest */

/** How often a Scheduled request is read again while its page is open. */
const POLL_MS = 1000

/** @param {import('../router.js').ViewContext} context */
export async function changeRequestsView({ main, params, query, current }) {
  const projectId = params.projectId ?? ''
  // `?feature=`: the requests that change one flag (linked from its page).
  const feature = query.get('feature')
  const of = feature ?? projectId
  /** @type {[string, string][]} */
  const crumbs = [
    ['Projects', '#/projects'],
    [projectId, link('projects', projectId)],
  ]
  if (feature) crumbs.push([feature, link('projects', projectId, 'features', feature)])
  const header = pageHeader(`Change requests of ${of}`, {
    crumbs,
    subtitle: feature ? h('a', { href: link('projects', projectId, 'change-requests') }, `All change requests of ${projectId}`) : undefined,
  })
  replace(main, header, loading())
  /** @type {ChangeRequest[]} */
  let requests
  try {
    requests = await api('GET', `/projects/${seg(projectId)}/change-requests`)
  } catch (error) {
    if (current()) replace(main, header, errorBox(error))
    return
  }
  if (!current()) return
  if (feature) requests = requests.filter((request) => request.features.some((changed) => changed.name === feature))
  replace(
    main,
    header,
    requests.length === 0
      ? h(
          'p',
          { class: 'empty' },
          `No change requests of ${of} yet. A change refused in an environment that needs them can be added to one from the flag’s page.`,
        )
      : h(
          'table',
          { class: 'table', 'data-change-requests': of },
          h('caption', { class: 'visually-hidden' }, `Change requests of ${of}, newest first`),
          h(
            'thead',
            null,
            h(
              'tr',
              null,
              ['#', 'Title', 'State', 'Environment', 'Flags', 'Author', 'Created'].map((title) => h('th', { scope: 'col' }, title)),
            ),
          ),
          h(
            'tbody',
            null,
            requests.map((request) =>
              h(
                'tr',
                { 'data-change-request': String(request.id) },
                h('td', null, String(request.id)),
                h(
                  'th',
                  { scope: 'row' },
                  h('a', { href: link('projects', projectId, 'change-requests', String(request.id)) }, request.title),
                ),
                h(
                  'td',
                  null,
                  stateBadge(request.state),
                  request.state === 'Scheduled' && request.schedule
                    ? [
                        ' ',
                        h(
                          'small',
                          null,
                          request.schedule.status === 'pending' ? formatDate(request.schedule.scheduledAt) : request.schedule.status,
                        ),
                      ]
                    : null,
                ),
                h('td', null, request.environment),
                h('td', null, request.features.map((changed) => changed.name).join(', ')),
                h('td', null, request.createdBy.username),
                h('td', null, formatDate(request.createdAt)),
              ),
            ),
          ),
        ),
  )
}

/** @param {import('../router.js').ViewContext} context */
export async function changeRequestView({ main, params, current, onLeave }) {
  const projectId = params.projectId ?? ''
  const id = params.id ?? ''
  const base = `/projects/${seg(projectId)}/change-requests/${seg(id)}`
  const crumbs = /** @type {[string, string][]} */ ([
    ['Projects', '#/projects'],
    [projectId, link('projects', projectId)],
    ['Change requests', link('projects', projectId, 'change-requests')],
  ])
  replace(main, pageHeader(`Change request #${id}`, { crumbs }), loading())
  const notice = h('div', { 'aria-live': 'polite' })
  /** @type {number | undefined} */
  let poll
  /** What a hidden tab stopped watching, watched again once the tab is shown. @type {ChangeRequest | undefined} */
  let paused
  const onVisibility = () => {
    if (document.visibilityState !== 'visible' || paused === undefined) return
    const shown = paused
    paused = undefined
    watch(shown, 0)
  }
  document.addEventListener('visibilitychange', onVisibility)
  onLeave(() => {
    clearTimeout(poll)
    document.removeEventListener('visibilitychange', onVisibility)
  })
  /** What a poll compares: the state and the schedule shown. @param {ChangeRequest} request */
  const shownKey = (request) => JSON.stringify([request.state, request.schedule ?? null])

  /**
   * While Scheduled and pending, reads the request every second; renders it again once its state
   * or schedule moved (applied, failed, cancelled, rejected, or moved elsewhere). A hidden tab
   * does not read: it reads as soon as it is shown again.
   * @param {ChangeRequest} shown
   * @param {number} [delay]
   */
  function watch(shown, delay = POLL_MS) {
    clearTimeout(poll)
    paused = undefined
    if (shown.state !== 'Scheduled' || shown.schedule?.status !== 'pending') return
    poll = window.setTimeout(async () => {
      if (document.visibilityState !== 'visible') {
        paused = shown
        return
      }
      /** @type {ChangeRequest | undefined} */
      const now = await api('GET', base).catch(() => undefined)
      if (!current()) return
      if (now && shownKey(now) !== shownKey(shown)) await render()
      else watch(shown)
    }, delay)
  }

  async function render() {
    /** @type {ChangeRequest} */
    let request
    try {
      request = await api('GET', base)
    } catch (error) {
      if (current()) replace(main, pageHeader(`Change request #${id}`, { crumbs }), notice, errorBox(error))
      return
    }
    // Each flag as it is now in the request's environment, for the diff (a flag gone shows the payload alone).
    const flags = await Promise.all(
      request.features.map((feature) =>
        api('GET', `/projects/${seg(projectId)}/features/${seg(feature.name)}`)
          .then((/** @type {{ environments: { name: string, enabled: boolean, strategies: any[], variants: any[] }[] }} */ flag) =>
            flag.environments.find((environment) => environment.name === request.environment),
          )
          .catch(() => undefined),
      ),
    )
    if (!current()) return
    const me = session.me
    const mine = me?.id !== undefined ? me.id === request.createdBy.id : me?.name === request.createdBy.username
    const open = OPEN_STATES.includes(request.state)
    /** A Draft's change (of a flag or a segment), discarded by its author. @param {{ id: number }} change */
    const discard = (change) =>
      request.state === 'Draft' && mine
        ? [
            ' ',
            h(
              'button',
              {
                type: 'button',
                class: 'link danger',
                'aria-label': `Discard change ${change.id}`,
                onclick: () => act(() => api('DELETE', `${base}/changes/${change.id}`), 'Change discarded.'),
              },
              'Discard',
            ),
          ]
        : null
    /** @param {string} state @param {string} label @param {string} done @param {string} [kind] */
    const move = (state, label, done, kind = 'primary') =>
      h('button', { type: 'button', class: kind, onclick: () => setState(state, done) }, label)
    const actions = [
      request.state === 'Draft' && mine ? move('In review', 'Send to review', `Change request #${id} sent to review.`) : null,
      request.state === 'In review' || request.state === 'Approved'
        ? guard(move('Approved', 'Approve', `Change request #${id} approved.`), 'APPROVE_CHANGE_REQUEST')
        : null,
      ['In review', 'Approved', 'Scheduled'].includes(request.state)
        ? guard(move('Rejected', 'Reject', `Change request #${id} rejected.`, 'secondary'), 'APPROVE_CHANGE_REQUEST')
        : null,
      request.state === 'Approved' || request.state === 'Scheduled'
        ? guard(
            h('button', { type: 'button', class: 'primary', onclick: apply }, request.state === 'Scheduled' ? 'Apply now' : 'Apply'),
            'APPLY_CHANGE_REQUEST',
          )
        : null,
      open && mine ? move('Cancelled', 'Cancel request', `Change request #${id} cancelled.`, 'danger') : null,
    ]
    const scheduling = scheduleForm({ request, base, done: render })
    replace(
      main,
      pageHeader(`Change request #${request.id}`, {
        crumbs,
        actions: open && mine ? [h('button', { type: 'button', class: 'secondary', onclick: () => editTitle(request) }, 'Edit title')] : [],
        subtitle: request.title,
      }),
      notice,
      h(
        'dl',
        { class: 'facts' },
        h('dt', null, 'State'),
        h('dd', { 'data-state-of': String(request.id) }, stateBadge(request.state)),
        h('dt', null, 'Environment'),
        h('dd', null, request.environment),
        h('dt', null, 'Author'),
        h('dd', null, request.createdBy.username, mine ? ' (you)' : ''),
        h('dt', null, 'Created'),
        h('dd', null, formatDate(request.createdAt)),
        h('dt', null, 'Approvals'),
        h(
          'dd',
          { 'data-approvals': String(request.minApprovals) },
          request.minApprovals === 0 ? 'none needed' : `${request.approvals.length} of ${request.minApprovals} needed`,
        ),
        request.stateTimestamps.Applied ? [h('dt', null, 'Applied'), h('dd', null, formatDate(request.stateTimestamps.Applied))] : null,
      ),
      request.state === 'Scheduled' && request.schedule ? scheduleNotice(request.schedule) : null,
      h('div', { class: 'actions change-request-actions' }, actions),
      scheduling ? section('Schedule', scheduling) : null,
      section(
        'Changes',
        request.features.length + request.segments.length === 0
          ? h('p', { class: 'empty' }, 'No changes.')
          : [
              request.features.map((feature, index) =>
                h(
                  'article',
                  { 'data-feature': feature.name },
                  h(
                    'h3',
                    null,
                    h('a', { href: link('projects', projectId, 'features', feature.name) }, feature.name),
                    ` in ${request.environment}`,
                  ),
                  feature.changes.map((change) => {
                    const now = flags[index]
                    const before = now?.strategies.find((strategy) => strategy.id === change.payload?.id)
                    return h(
                      'div',
                      { class: 'change', 'data-change': String(change.id) },
                      h('p', null, h('strong', null, describeChange(change, before)), discard(change)),
                      changeDiff(change, now),
                    )
                  }),
                ),
              ),
              // A segment's changes (no flag): a line each.
              request.segments.length === 0
                ? null
                : h(
                    'article',
                    { 'data-segments': '' },
                    h('h3', null, 'Segments'),
                    request.segments.map((change) =>
                      h(
                        'div',
                        { class: 'change', 'data-change': String(change.id) },
                        h('p', null, h('strong', null, describeChange(change)), discard(change)),
                      ),
                    ),
                  ),
            ],
      ),
      section(
        'Reviews',
        request.approvals.length + request.rejections.length === 0
          ? h('p', { class: 'empty' }, 'No reviews yet.')
          : h(
              'ul',
              null,
              request.approvals.map((review) => h('li', null, `Approved by ${review.createdBy.username}, ${formatDate(review.createdAt)}`)),
              request.rejections.map((review) =>
                h('li', null, `Rejected by ${review.createdBy.username}, ${formatDate(review.createdAt)}`),
              ),
            ),
      ),
      section('Comments', commentList(request), commentForm()),
    )
    watch(request)
  }

  /** @param {ChangeRequest} request */
  function commentList(request) {
    return request.comments.length === 0
      ? h('p', { class: 'empty' }, 'No comments.')
      : h(
          'ul',
          { class: 'comments' },
          request.comments.map((comment) =>
            h('li', null, h('strong', null, comment.createdBy.username), ` · ${formatDate(comment.createdAt)}: `, comment.text),
          ),
        )
  }

  function commentForm() {
    const text = h('textarea', { name: 'comment', rows: 2 })
    const form = h(
      'form',
      null,
      field('Your comment', text, { path: '/body/text' }),
      h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'secondary' }, 'Add comment')),
    )
    form.addEventListener('submit', (event) => {
      event.preventDefault()
      void act(() => api('POST', `${base}/comments`, { text: text.value }), 'Comment added.')
    })
    return form
  }

  /** @param {ChangeRequest} request */
  async function editTitle(request) {
    const title = h('input', { type: 'text', name: 'title', value: request.title, autocomplete: 'off' })
    const confirmed = await confirmDialog({ title: 'Edit the title', body: field('Title', title), confirm: 'Save title' })
    if (confirmed) await act(() => api('PUT', `${base}/title`, { title: title.value.trim() }), 'Title saved.')
  }

  /** @param {string} state @param {string} done */
  async function setState(state, done) {
    await act(() => api('PUT', `${base}/state`, { state }), done)
  }

  async function apply() {
    const sure = await confirmDialog({
      title: `Apply change request #${id}?`,
      body: 'Every change is made now, in one go: all of them or, if one no longer applies, none.',
      confirm: 'Apply',
    })
    if (sure) await act(() => api('PUT', `${base}/state`, { state: 'Applied' }), `Change request #${id} applied.`)
  }

  /** @param {() => Promise<unknown>} action @param {string} done */
  async function act(action, done) {
    await runAction(notice, render, action, done)
  }

  await render()
}
