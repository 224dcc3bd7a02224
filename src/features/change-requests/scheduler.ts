/**
 * The change request scheduler: every instance looks for due Scheduled requests each interval and
 * applies them (scheduled-apply.ts runDue). Each due request is claimed inside the
 * transaction that applies it, so with several instances on one database it is applied once; an
 * instance that was down when a request fell due leaves it to the others, or applies it late
 * itself once back (the events say when it was due and when it ran).
 *
 * A request falling due before the next interval is not left waiting for it: after each pass the
 * scheduler asks when the next one falls due and, if that is sooner, passes again at that time;
 * the instance where a request is scheduled is told at once (`dueAt`). So a request is applied
 * within milliseconds of its time, not up to an interval after it.
 */
import type { ChangeRequestService } from './change-request-service.ts'

export interface SchedulerOptions {
  changeRequests: Pick<ChangeRequestService, 'runDue' | 'nextDue'>
  intervalMs: number
  log: { warn(object: unknown, message: string): void }
  /** While this says so (maintenance mode), a pass is skipped: due requests wait until it ends. */
  paused?: () => boolean | Promise<boolean>
}

/** Passes every `intervalMs`, one at a time, until stopped; the timers keep no process alive. */
export function startChangeRequestScheduler({ changeRequests, intervalMs, log, paused }: SchedulerOptions) {
  let running: Promise<void> | undefined
  // A pass asked for while one ran: it runs once that one ends.
  let again = false
  let stopped = false
  // The extra pass at a request's time, and that time (ms since the epoch).
  let wake: NodeJS.Timeout | undefined
  let wakeAt = Number.POSITIVE_INFINITY

  /** An extra pass at `at` (ms since the epoch), if that is sooner than the next interval's and than one already set. */
  const passAt = (at: number) => {
    if (stopped || at >= wakeAt || at > Date.now() + intervalMs) return
    clearTimeout(wake)
    wakeAt = at
    wake = setTimeout(
      () => {
        wake = undefined
        wakeAt = Number.POSITIVE_INFINITY
        tick()
      },
      Math.max(0, at - Date.now()),
    )
    wake.unref()
  }

  const pass = async () => {
    if (await paused?.()) return
    const now = new Date()
    await changeRequests.runDue(now)
    const next = await changeRequests.nextDue(now)
    if (next !== undefined) passAt(next)
  }

  const tick = () => {
    if (stopped) return
    if (running) {
      again = true
      return
    }
    again = false
    running = pass()
      .catch((error: unknown) => log.warn({ err: error }, 'the change request scheduler failed; it looks again at its next interval'))
      .finally(() => {
        running = undefined
        if (again) tick()
      })
  }
  const timer = setInterval(tick, intervalMs)
  timer.unref()
  return {
    /** A request was just scheduled here, for the ISO time `scheduledAt`. */
    dueAt(scheduledAt: string): void {
      passAt(Date.parse(scheduledAt))
    },
    async stop(): Promise<void> {
      stopped = true
      clearInterval(timer)
      clearTimeout(wake)
      await running
    },
  }
}

export type ChangeRequestScheduler = ReturnType<typeof startChangeRequestScheduler>
