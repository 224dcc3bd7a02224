/**
 * The change request scheduler: every instance looks for due Scheduled requests each interval and
 * applies them (scheduled-apply.ts runDue). Each due request is claimed inside the
 * transaction that applies it, so with several instances on one database it is applied once; an
 * instance that was down when a request fell due leaves it to the others, or applies it late
 * itself once back (the events say when it was due and when it ran).
 */
import type { ChangeRequestService } from './change-request-service.ts'

export interface SchedulerOptions {
  changeRequests: Pick<ChangeRequestService, 'runDue'>
  intervalMs: number
  log: { warn(object: unknown, message: string): void }
  /** While this says so (maintenance mode), a pass is skipped: due requests wait until it ends. */
  paused?: () => boolean | Promise<boolean>
}

/** Passes every `intervalMs`, one at a time, until stopped; the timer keeps no process alive. */
export function startChangeRequestScheduler({ changeRequests, intervalMs, log, paused }: SchedulerOptions) {
  let running: Promise<void> | undefined
  let stopped = false
  const tick = () => {
    if (stopped || running) return
    running = (async () => {
      if (!(await paused?.())) await changeRequests.runDue()
    })()
      .catch((error: unknown) => log.warn({ err: error }, 'the change request scheduler failed; it looks again at its next interval'))
      .finally(() => {
        running = undefined
      })
  }
  const timer = setInterval(tick, intervalMs)
  timer.unref()
  return {
    async stop(): Promise<void> {
      stopped = true
      clearInterval(timer)
      await running
    },
  }
}
