// @ts-check
/**
 * A change request's schedule (docs/change-requests.md#scheduling): when a Scheduled request will
 * be applied, why its schedule failed or is suspended, and the form that schedules an Approved
 * request or moves a Scheduled one. Times are entered in the browser's local time and sent as ISO.
 */
import { ApiError, api } from '../api.js'
import { announce, clearFieldErrors, field, formatDate, h, replace, showFieldErrors } from '../dom.js'
import { can } from '../session.js'
import { errorBox } from '../ui.js'

/** @typedef {{ scheduledAt: string, status: string, reason?: string, failureReason?: string }} Schedule */

/** @param {number} n */
const two = (n) => String(n).padStart(2, '0')

/**
 * A time as a `datetime-local` value, in the browser's time zone, to the second.
 * @param {Date} date
 */
export function localInputValue(date) {
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}T${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`
}

/**
 * A `datetime-local` value (local time, no offset: the form ECMAScript reads as local) as ISO 8601 UTC;
 * null when it is not a time.
 * @param {string} value
 */
export function isoFromLocalInput(value) {
  const date = new Date(value)
  return value === '' || Number.isNaN(date.getTime()) ? null : date.toISOString()
}

/**
 * A schedule in a line, with its time as a `<time>` element; a failed or suspended one says why.
 * @param {Schedule} schedule
 */
export function scheduleNotice(schedule) {
  const when = h('time', { datetime: schedule.scheduledAt }, formatDate(schedule.scheduledAt))
  const reason = schedule.reason ?? schedule.failureReason
  if (schedule.status === 'failed')
    return h(
      'div',
      { class: 'alert error', role: 'alert', 'data-schedule': 'failed' },
      h('p', null, h('strong', null, 'The schedule failed: '), 'nothing was applied when it was due, at ', when, '.'),
      reason ? h('p', { 'data-schedule-reason': '' }, reason) : null,
      h('p', null, 'Schedule it again, apply it now or cancel it.'),
    )
  if (schedule.status === 'suspended')
    return h(
      'div',
      { class: 'alert warn', role: 'alert', 'data-schedule': 'suspended' },
      h('p', null, h('strong', null, 'The schedule is suspended: '), 'it will not be applied at ', when, '.'),
      reason ? h('p', { 'data-schedule-reason': '' }, reason) : null,
      h('p', null, 'Schedule it again, apply it now or cancel it.'),
    )
  return h(
    'p',
    { class: 'alert info', 'data-schedule': schedule.status },
    'Scheduled: it will be applied at ',
    when,
    ' (checked every second while this page is open).',
  )
}

/**
 * The form that schedules an Approved request or moves a Scheduled one; null for those who may not
 * apply it (APPLY_CHANGE_REQUEST).
 * @param {{ request: { id: number, state: string, schedule?: Schedule }, base: string, done: () => Promise<unknown> }} options
 */
export function scheduleForm({ request, base, done }) {
  if (!['Approved', 'Scheduled'].includes(request.state) || !can('APPLY_CHANGE_REQUEST')) return null
  const moving = request.state === 'Scheduled'
  // Offered: the time it is scheduled for, while still ahead; else an hour from now.
  const scheduled = request.schedule ? Date.parse(request.schedule.scheduledAt) : Number.NaN
  const initial = new Date(scheduled > Date.now() ? scheduled : Date.now() + 60 * 60 * 1000)
  const at = h('input', {
    type: 'datetime-local',
    name: 'scheduledAt',
    step: '1',
    required: true,
    value: localInputValue(initial),
  })
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone
  const problem = h('div', { 'aria-live': 'polite' })
  const form = h(
    'form',
    { class: 'schedule-form', 'data-schedule-form': String(request.id) },
    field('Apply at', at, { path: '/body/scheduledAt', hint: `Your local time (${zone}); it must be in the future.` }),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'secondary' }, moving ? 'Move the schedule' : 'Schedule')),
    problem,
  )
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    clearFieldErrors(form)
    replace(problem)
    const scheduledAt = isoFromLocalInput(at.value)
    if (!scheduledAt) {
      showFieldErrors(form, [{ path: '/body/scheduledAt', message: 'Enter a date and a time.' }], problem)
      return
    }
    try {
      await api('PUT', `${base}/state`, { state: 'Scheduled', scheduledAt })
    } catch (error) {
      if (error instanceof ApiError && error.status === 400) showFieldErrors(form, error.details, problem)
      else replace(problem, errorBox(error))
      return
    }
    announce(`Change request #${request.id} scheduled for ${formatDate(scheduledAt)}.`)
    await done()
  })
  return form
}
