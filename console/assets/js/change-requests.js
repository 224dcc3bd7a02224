// @ts-check
/**
 * Change requests, the pieces several pages share: what a change will do, in words (docs/change-requests.md),
 * the direct change's refusal in a protected environment, and the offer to put that change into a
 * change request instead.
 */
import { ApiError, api, seg } from './api.js'
import { describeConstraint } from './constraint-editor.js'
import { h } from './dom.js'
import { link } from './router.js'
import { badge, errorBox, errorMessage } from './ui.js'

/** @typedef {{ id: number, username: string, imageUrl: string }} CrUser */
/** @typedef {{ id: number, action: string, payload: any, createdBy: CrUser, createdAt: string }} Change */
/** @typedef {{ id: number, title: string, project: string, environment: string, state: string, minApprovals: number, createdBy: CrUser, createdAt: string, features: { name: string, changes: Change[] }[], segments: (Change & { name: string })[], approvals: { createdBy: CrUser, createdAt: string }[], rejections: { createdBy: CrUser, createdAt: string }[], comments: { id: number, text: string, createdBy: CrUser, createdAt: string }[], stateTimestamps: Record<string, string>, schedule?: import('./views/change-request-schedule.js').Schedule }} ChangeRequest */
/** @typedef {{ environment: string, action: string, payload: unknown }} ProposedChange */

/** The states still open, as the pending lists hold them. */
export const OPEN_STATES = ['Draft', 'In review', 'Approved', 'Scheduled']

/** @param {string} state */
export function stateBadge(state) {
  const kind = state === 'Applied' || state === 'Approved' ? 'ok' : state === 'Rejected' ? 'bad' : state === 'Cancelled' ? '' : 'warn'
  return h('span', { class: `badge ${kind}`.trim(), 'data-state': state }, state)
}

/**
 * Whether a direct change was refused because its environment needs change requests.
 * @param {unknown} error
 */
export function needsChangeRequest(error) {
  return error instanceof ApiError && error.status === 403 && error.permissions.includes('SKIP_CHANGE_REQUEST')
}

/**
 * The refusal of a direct change, and a button that puts the change into the caller's draft for
 * that environment (made when there is none); then a link to the draft. A draft the caller already
 * has there is linked at once.
 * @param {{ error: unknown, projectId: string, feature: string, change: ProposedChange, onQueued?: (request: ChangeRequest) => void }} options
 */
export function changeRequestOffer({ error, projectId, feature, change, onQueued }) {
  const outcome = h('div', { 'aria-live': 'polite' })
  const button = h(
    'button',
    {
      type: 'button',
      class: 'primary small',
      onclick: async () => {
        button.disabled = true
        try {
          /** @type {ChangeRequest} */
          const request = await api('POST', `/projects/${seg(projectId)}/environments/${seg(change.environment)}/change-requests`, {
            feature,
            action: change.action,
            payload: change.payload,
          })
          box.replaceChildren(
            h(
              'p',
              { role: 'status' },
              `The change was added to change request #${request.id} (${request.state}). `,
              h('a', { href: link('projects', projectId, 'change-requests', String(request.id)) }, `Open change request #${request.id}`),
              request.state === 'Draft' ? ': send it to review there.' : '.',
            ),
          )
          box.className = 'alert success'
          onQueued?.(request)
        } catch (failure) {
          button.disabled = false
          outcome.replaceChildren(errorBox(failure))
        }
      },
    },
    'Add to a change request',
  )
  const draft = h('p', { 'data-existing-draft': '' })
  draft.hidden = true
  const box = h(
    'div',
    { class: 'alert warn', role: 'alert', 'data-change-request-offer': change.environment },
    h('p', null, errorMessage(error)),
    h('p', null, `${change.environment} needs change requests: ${describeChange({ action: change.action, payload: change.payload })}.`),
    draft,
    h('p', null, button),
    outcome,
  )
  // The pending list holds the caller's own drafts only; left out if it cannot be read.
  api('GET', `/projects/${seg(projectId)}/change-requests/pending`)
    .then((/** @type {ChangeRequest[]} */ pending) => {
      const mine = pending.find((request) => request.state === 'Draft' && request.environment === change.environment)
      if (!mine) return
      draft.append(
        'You have a draft there: ',
        h('a', { href: link('projects', projectId, 'change-requests', String(mine.id)) }, `Your draft, change request #${mine.id}`),
        ' (the change is added to it).',
      )
      draft.hidden = false
    })
    .catch(() => {})
  return box
}

/**
 * A strategy's label in a sentence.
 * @param {any} strategy
 */
function strategyName(strategy) {
  return strategy?.title ? `${strategy.title} (${strategy.name})` : String(strategy?.name ?? 'strategy')
}

/**
 * A strategy's settings as lines: parameters, constraints, segments, paused.
 * @param {any} strategy
 * @returns {string[]}
 */
export function strategyLines(strategy) {
  if (!strategy || typeof strategy !== 'object') return []
  return [
    ...Object.entries(strategy.parameters ?? {}).map(([key, value]) => `${key}: ${value}`),
    ...(strategy.constraints ?? []).map((/** @type {any} */ constraint) => `constraint: ${describeConstraint(constraint)}`),
    ...((strategy.segments ?? []).length ? [`segments: ${strategy.segments.join(', ')}`] : []),
    ...(strategy.disabled ? ['paused'] : []),
  ]
}

/**
 * One change in a sentence; `before` is the strategy as it is now, when known.
 * @param {{ action: string, payload: any }} change
 * @param {any} [before]
 */
export function describeChange({ action, payload }, before) {
  switch (action) {
    case 'updateEnabled':
      return payload?.enabled ? 'switch on' : 'switch off'
    case 'addStrategy':
      return `add strategy ${strategyName(payload)}`
    case 'updateStrategy':
      return `change strategy ${strategyName(before ?? payload)}`
    case 'deleteStrategy':
      return `remove strategy ${before ? strategyName(before) : String(payload?.id ?? '')}`
    case 'reorderStrategy':
      return 'reorder the strategies'
    case 'patchVariant':
      return `set ${(payload?.variants ?? []).length} variant(s)`
    case 'archiveFeature':
      return 'archive the flag (in every environment)'
    case 'addDependency': {
      const variants = payload?.variants?.length ? ` with variant ${payload.variants.join(', ')}` : ''
      return `depend on ${String(payload?.feature ?? '')} being ${payload?.enabled === false ? 'off' : `on${variants}`}`
    }
    case 'deleteDependency':
      return payload?.feature ? `stop depending on ${payload.feature}` : 'remove its dependencies'
    case 'updateSegment': {
      const count = (payload?.constraints ?? []).length
      return `change segment ${String(payload?.name ?? payload?.id ?? '')}: ${count} constraint${count === 1 ? '' : 's'}${payload?.project ? `, project ${payload.project}` : ''}`
    }
    case 'deleteSegment':
      return `delete segment ${String(payload?.name ?? payload?.id ?? '')}`
    default:
      return action
  }
}

/**
 * A variant in a line: its name, weight and payload.
 * @param {any} variant
 */
function variantLine(variant) {
  const weight = variant.weightType === 'fix' ? `${(variant.weight / 10).toFixed(1)}% (fixed)` : 'variable weight'
  return `variant ${variant.name}: ${weight}${variant.payload ? `, payload ${variant.payload.type}: ${variant.payload.value}` : ''}`
}

/**
 * What one change will do, as a small diff: lines removed (−) and added (+).
 * @param {{ action: string, payload: any }} change
 * @param {{ enabled: boolean, strategies: any[], variants?: any[] } | undefined} now the flag in the environment as it is now
 */
export function changeDiff(change, now) {
  const { action, payload } = change
  const before = now?.strategies.find((strategy) => strategy.id === payload?.id)
  /** @type {[string, string][]} */
  let lines = []
  if (action === 'updateEnabled') {
    lines = [
      ['-', now ? (now.enabled ? 'on' : 'off') : payload?.enabled ? 'off' : 'on'],
      ['+', payload?.enabled ? 'on' : 'off'],
    ]
  } else if (action === 'addStrategy') {
    lines = strategyLines(payload).map((line) => ['+', line])
  } else if (action === 'deleteStrategy') {
    lines = strategyLines(before).map((line) => ['-', line])
  } else if (action === 'updateStrategy') {
    const old = strategyLines(before)
    const next = strategyLines(payload)
    lines = [
      ...old.filter((line) => !next.includes(line)).map((line) => /** @type {[string, string]} */ (['-', line])),
      ...next.filter((line) => !old.includes(line)).map((line) => /** @type {[string, string]} */ (['+', line])),
    ]
    if (before && payload?.name && payload.name !== before.name) lines.unshift(['-', before.name], ['+', payload.name])
    if (lines.length === 0) lines = [[' ', 'no visible difference']]
  } else if (action === 'reorderStrategy') {
    const names = new Map((now?.strategies ?? []).map((strategy) => [strategy.id, strategyName(strategy)]))
    lines = [...(Array.isArray(payload) ? payload : [])]
      .sort((a, b) => a.sortOrder - b.sortOrder)
      .map((item, index) => ['+', `${index + 1}. ${names.get(item.id) ?? item.id}`])
  } else if (action === 'patchVariant') {
    const old = (now?.variants ?? []).map(variantLine)
    /** @type {string[]} */
    const next = (payload?.variants ?? []).map(variantLine)
    lines = [
      ...old.filter((line) => !next.includes(line)).map((line) => /** @type {[string, string]} */ (['-', line])),
      ...next.filter((line) => !old.includes(line)).map((line) => /** @type {[string, string]} */ (['+', line])),
    ]
    if (lines.length === 0) lines = [[' ', 'no visible difference']]
  }
  return h(
    'ul',
    { class: 'change-diff' },
    lines.map(([sign, text]) =>
      h(
        'li',
        { class: sign === '+' ? 'added' : sign === '-' ? 'removed' : '' },
        h('span', { 'aria-hidden': 'true' }, `${sign} `),
        sign === '+'
          ? h('span', { class: 'visually-hidden' }, 'becomes ')
          : sign === '-'
            ? h('span', { class: 'visually-hidden' }, 'was ')
            : null,
        text,
      ),
    ),
  )
}

/**
 * The open change requests that touch a flag, as links; empty when there are none (or they
 * cannot be read).
 * @param {string} projectId
 * @param {string} feature
 */
export async function pendingNotice(projectId, feature) {
  /** @type {ChangeRequest[]} */
  let pending
  try {
    pending = await api('GET', `/projects/${seg(projectId)}/change-requests/pending/${seg(feature)}`)
  } catch {
    return null
  }
  if (pending.length === 0) return null
  return h(
    'div',
    { class: 'alert info', 'data-pending-change-requests': String(pending.length) },
    badge('pending changes', 'warn'),
    ' ',
    pending.map((request, index) => [
      index ? ', ' : '',
      h(
        'a',
        { href: link('projects', projectId, 'change-requests', String(request.id)) },
        `#${request.id} ${request.title} (${request.state}, ${request.environment})`,
      ),
    ]),
  )
}
