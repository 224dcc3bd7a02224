// @ts-check
/**
 * Reverting one change from a flag's history: the Revert button of each revertible event asks
 * the server for a dry run, shows its diff in a confirmation dialog and applies it on confirm.
 * When later events changed the same things the server refuses (409, naming them): the dialog
 * says so and offers to revert anyway (force).
 */
import { api, ApiError } from '../api.js'
import { announce, confirmDialog, h } from '../dom.js'
import { diffLines } from '../json-diff.js'
import { REVERTIBLE } from '../revertible.js'
import { errorBox, guard } from '../ui.js'

/** @typedef {{ kind: string, field?: string, environment?: string, from?: any, to?: any, strategy?: any, strategyId?: string, fields?: { field: string, from: unknown, to: unknown }[], parent?: string, enabled?: boolean, variants?: string[] }} Change */
/** @typedef {{ kind: 'add' | 'del' | 'chg' | 'head', text: string }} Line */

/** @param {string} prefix @param {{ kind: 'add' | 'del' | 'chg', text: string }[]} lines @returns {Line[]} */
const indented = (prefix, lines) => lines.map((line) => ({ kind: line.kind, text: `${prefix}${line.text}` }))

/**
 * The diff as lines a person reads: a heading line per change, the values that change under it.
 * @param {Change[]} changes
 * @returns {Line[]}
 */
export function changeLines(changes) {
  /** @type {Line[]} */
  const lines = []
  for (const change of changes) {
    const where = change.environment ? ` in ${change.environment}` : ''
    switch (change.kind) {
      case 'metadata':
        lines.push({ kind: 'chg', text: `~ ${change.field}: ${JSON.stringify(change.from)} → ${JSON.stringify(change.to)}` })
        break
      case 'enabled':
        lines.push({ kind: 'chg', text: `~ switched ${change.to ? 'on' : 'off'}${where}` })
        break
      case 'strategy-added':
        lines.push(
          { kind: 'add', text: `+ strategy ${change.strategy.title ?? change.strategy.name} added${where}` },
          ...indented('    ', diffLines(null, change.strategy)),
        )
        break
      case 'strategy-removed':
        lines.push(
          { kind: 'del', text: `- strategy ${change.strategy.title ?? change.strategy.name} removed${where}` },
          ...indented('    ', diffLines(change.strategy, null)),
        )
        break
      case 'strategy-updated':
        lines.push({ kind: 'head', text: `~ strategy ${change.strategyId} changed${where}` })
        for (const field of change.fields ?? [])
          lines.push(...indented('    ', diffLines({ [field.field]: field.from }, { [field.field]: field.to })))
        break
      case 'variants':
        lines.push(
          { kind: 'head', text: `~ variants${where}` },
          ...indented('    ', diffLines({ variants: change.from }, { variants: change.to })),
        )
        break
      case 'dependency-added':
        lines.push({
          kind: 'add',
          text: `+ depends on ${change.parent} (${change.enabled ? 'enabled' : 'disabled'}${change.variants?.length ? `, variants ${change.variants.join(', ')}` : ''})`,
        })
        break
      case 'dependency-removed':
        lines.push({ kind: 'del', text: `- no longer depends on ${change.parent}` })
        break
    }
  }
  return lines
}

/** @param {Change[]} changes */
function diffView(changes) {
  if (changes.length === 0) return h('p', { class: 'hint' }, 'Nothing to change: the flag is already as it was before this event.')
  return h(
    'ul',
    { class: 'diff', 'aria-label': 'Changes the revert makes' },
    changeLines(changes).map((line) => h('li', { class: line.kind }, line.text)),
  )
}

/**
 * Asks whether to revert despite later changes. Resolves true to force.
 * @param {ApiError} error
 */
function confirmForce(error) {
  return confirmDialog({
    title: 'Later changes touched the same things',
    body: [
      h('p', { role: 'alert' }, error.message),
      h(
        'ul',
        { class: 'conflicts' },
        error.details.map((detail) => h('li', null, detail.message)),
      ),
      h('p', null, 'Reverting anyway overwrites those later changes.'),
    ],
    confirm: 'Revert anyway',
    danger: true,
  })
}

/** @param {unknown} error */
const isConflict = (error) =>
  error instanceof ApiError && error.status === 409 && error.details.some((detail) => detail.eventId !== undefined)

/**
 * The dry run, the dialog, the revert. Resolves whether something was reverted.
 * @param {{ id: number, type: string }} event
 */
async function revertFlow(event, force = false) {
  const query = force ? '&force=true' : ''
  /** @type {{ changes: Change[] }} */
  let preview
  try {
    preview = await api('POST', `/events/${event.id}/revert?dryRun=true${query}`)
  } catch (error) {
    if (!force && error instanceof ApiError && isConflict(error) && (await confirmForce(error))) return revertFlow(event, true)
    if (isConflict(error)) return false
    throw error
  }
  const confirmed = await confirmDialog({
    title: `Revert event #${event.id} (${event.type})?`,
    body: [h('p', null, 'These changes restore the flag as it was before this event:'), diffView(preview.changes)],
    confirm: 'Revert',
    confirmDisabled: preview.changes.length === 0,
  })
  if (!confirmed) return false
  try {
    await api('POST', `/events/${event.id}/revert${force ? '?force=true' : ''}`)
  } catch (error) {
    // Someone changed the same things between the preview and the confirmation.
    if (!force && isConflict(error) && error instanceof ApiError && (await confirmForce(error))) return revertFlow(event, true)
    throw error
  }
  announce(`Event #${event.id} reverted.`)
  return true
}

/**
 * The Revert button of an event in a flag's history, or nothing when its type cannot be reverted.
 * @param {{ id: number, type: string }} event
 * @param {{ notice: HTMLElement, reverted: () => Promise<void> }} options
 */
export function revertControl(event, { notice, reverted }) {
  const permission = REVERTIBLE[event.type]
  if (!permission) return null
  const button = h('button', { type: 'button', class: 'secondary small', 'data-revert': String(event.id) }, 'Revert')
  button.addEventListener('click', async () => {
    button.disabled = true
    notice.replaceChildren()
    try {
      if (await revertFlow(event)) await reverted()
    } catch (error) {
      notice.replaceChildren(errorBox(error))
    } finally {
      button.disabled = false
    }
  })
  return guard(button, permission)
}
