/**
 * What a `slack-app` integration sends, as the reference's app for Slack does with Slack's
 * chat.postMessage: one message per channel (the flag's `slack` tags, then `defaultChannels`,
 * each once), a section with the event's line and, for a flag's event when PUBLIC_URL says where
 * Pennon is reached, a button to the flag in the console. Slack answers 200 with `ok: false` when
 * it refuses a message: that channel's call failed. All failed: failed (tried again); some:
 * `successWithErrors` (not tried again, so the channels that have it do not get it twice).
 * No HTTP here (senders.ts sends).
 */
import type { ParameterValue } from './addon-store.ts'

/** The most text a Slack section takes; a longer line is cut there. */
const TEXT_LIMIT = 3000

export interface SlackMessage {
  text: string
  blocks: object[]
  /** What the delivery log shows was said. */
  message: string
}

/** The channels of an event: its flag's `slack` tags, then the default ones, each once. */
export function slackChannels(tags: readonly { type: string; value: string }[] | undefined, defaultChannels?: ParameterValue): string[] {
  const tagged = (tags ?? []).filter((tag) => tag.type === 'slack').map((tag) => tag.value)
  const defaults = typeof defaultChannels === 'string' ? defaultChannels.split(',').map((channel) => channel.trim()) : []
  return [...new Set([...tagged, ...defaults].filter((channel) => channel !== ''))]
}

/** The flag's page in the console, when Pennon's address is known and the event is about a flag. */
export function flagPage(publicUrl: string | undefined, event: Record<string, unknown>): string | undefined {
  if (publicUrl === undefined || typeof event.featureName !== 'string' || typeof event.project !== 'string') return undefined
  return `${publicUrl}/#/projects/${encodeURIComponent(event.project)}/features/${encodeURIComponent(event.featureName)}`
}

export function slackMessage(line: string, page: string | undefined): SlackMessage {
  const text = line.slice(0, TEXT_LIMIT)
  const blocks: object[] = [{ type: 'section', text: { type: 'mrkdwn', text } }]
  if (page !== undefined) {
    blocks.push({
      type: 'actions',
      elements: [
        { type: 'button', url: page, text: { type: 'plain_text', text: 'Open in Pennon' }, value: 'featureToggle', style: 'primary' },
      ],
    })
  }
  return { text, blocks, message: text.length < line.length ? `${line} (trimmed to ${TEXT_LIMIT} characters)` : line }
}

/**
 * Why one chat.postMessage call failed, in the reference's words, or undefined when Slack took the
 * message. `status` undefined: no answer (refused, unreachable, too slow).
 */
export function slackCallProblem(status: number | undefined, answer: Buffer): string | undefined {
  if (status === undefined) return 'A request error occurred: no answer (refused, unreachable or too slow)'
  if (status < 200 || status >= 300) return `An HTTP error occurred: status code ${status}`
  let parsed: unknown
  try {
    parsed = JSON.parse(answer.toString('utf8'))
  } catch {
    return `A platform error occurred: the answer is not JSON (${JSON.stringify(answer.toString('utf8').slice(0, 200))})`
  }
  if (typeof parsed === 'object' && parsed !== null && (parsed as { ok?: unknown }).ok === true) return undefined
  return `A platform error occurred: ${JSON.stringify(parsed)}`
}

/** The outcome of one event's calls, one problem (or undefined) per channel, as the reference words it. */
export function slackOutcome(problems: readonly (string | undefined)[]): {
  state: 'success' | 'failed' | 'successWithErrors'
  stateDetails: string
} {
  const failed = problems.filter((problem) => problem !== undefined)
  const errors = [...new Set(failed)].join(' ')
  if (failed.length === 0) return { state: 'success', stateDetails: `All (${problems.length}) Slack client calls were successful.` }
  if (failed.length === problems.length) {
    return { state: 'failed', stateDetails: `All (${problems.length}) Slack client calls failed with the following errors: ${errors}` }
  }
  return {
    state: 'successWithErrors',
    stateDetails: `Some (${failed.length} of ${problems.length}) Slack client calls failed. Errors: ${errors}`,
  }
}
