// @ts-check
/**
 * A project's change requests (docs/change-requests.md): the list, newest first, and one request's
 * page: what its changes will do to each flag as it is now, its reviews and comments, and the moves
 * its state allows (send to review, approve, reject, apply, cancel). Who may make a move is the
 * server's to say: a refusal (an author approving their own request) is shown as it answers.
 */
import { api, seg } from '../api.js'
import { changeDiff, describeChange, stateBadge } from '../change-requests.js'
import { confirmDialog, field, formatDate, h, replace } from '../dom.js'
import { link } from '../router.js'
import { session } from '../session.js'
import { errorBox, guard, loading, pageHeader, runAction, section } from '../ui.js'

/** @typedef {import('../change-requests.js').ChangeRequest} ChangeRequest */

/** @param {import('../router.js').ViewContext} context */
export async function changeRequestsView({ main, params, current }) {
  const projectId = params.projectId ?? ''
  const header = pageHeader(`Change requests of ${projectId}`, {
    crumbs: [
      ['Projects', '#/projects'],
      [projectId, link('projects', projectId)],
    ],
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
  replace(
    main,
    header,
    requests.length === 0
      ? h(
          'p',
          { class: 'empty' },
          'No change requests yet. A change refused in an environment that needs them can be added to one from the flag’s page.',
        )
      : h(
          'table',
          { class: 'table', 'data-change-requests': projectId },
          h('caption', { class: 'visually-hidden' }, `Change requests of ${projectId}, newest first`),
          h(
            'thead',
            null,
            h(
              'tr',
              null,
              ['#', 'Title', 'State', 'Environment', 'Author', 'Created'].map((title) => h('th', { scope: 'col' }, title)),
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
                h('td', null, stateBadge(request.state)),
                h('td', null, request.environment),
                h('td', null, request.createdBy.username),
                h('td', null, formatDate(request.createdAt)),
              ),
            ),
          ),
        ),
  )
}

/** @param {import('../router.js').ViewContext} context */
export async function changeRequestView({ main, params, current }) {
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
    const open = ['Draft', 'In review', 'Approved'].includes(request.state)
    /** @param {string} state @param {string} label @param {string} done @param {string} [kind] */
    const move = (state, label, done, kind = 'primary') =>
      h('button', { type: 'button', class: kind, onclick: () => setState(state, done) }, label)
    const actions = [
      request.state === 'Draft' && mine ? move('In review', 'Send to review', `Change request #${id} sent to review.`) : null,
      request.state === 'In review' || request.state === 'Approved'
        ? [
            guard(move('Approved', 'Approve', `Change request #${id} approved.`), 'APPROVE_CHANGE_REQUEST'),
            guard(move('Rejected', 'Reject', `Change request #${id} rejected.`, 'secondary'), 'APPROVE_CHANGE_REQUEST'),
          ]
        : null,
      request.state === 'Approved'
        ? guard(h('button', { type: 'button', class: 'primary', onclick: apply }, 'Apply'), 'APPLY_CHANGE_REQUEST')
        : null,
      open && mine ? move('Cancelled', 'Cancel request', `Change request #${id} cancelled.`, 'danger') : null,
    ]
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
        h('dd', null, `${request.approvals.length} of ${request.minApprovals} needed`),
      ),
      h('div', { class: 'actions change-request-actions' }, actions),
      section(
        'Changes',
        request.features.length === 0
          ? h('p', { class: 'empty' }, 'No changes.')
          : request.features.map((feature, index) =>
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
                    h(
                      'p',
                      null,
                      h('strong', null, describeChange(change, before)),
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
                        : null,
                    ),
                    changeDiff(change, now),
                  )
                }),
              ),
            ),
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
