/**
 * Sends one event to an integration over HTTP, each provider's request as the reference's provider
 * makes it: `webhook` (Content-Type, Authorization, the custom headers last; the event as JSON, or
 * the Mustache template rendered), `teamsworkflow` (an adaptive card), `datadog` (Events API),
 * `new-relic` (Event API, gzipped) and `slack-app` (Slack's chat.postMessage per channel, at
 * INTEGRATIONS_SLACK_API_URL; slack-app.ts). Every request also carries Standard Webhooks headers
 * (`webhook-id` the same for every attempt of one event, so a receiver can drop a duplicate;
 * `webhook-timestamp`; `webhook-signature` with a webhook's signing secret). The connection goes
 * only to an address checked public (or a host allowed by name) when it is made, so a name
 * re-pointed since the integration was saved is caught. No redirect is followed; 10 s in all; at
 * most 64 KiB of the answer is read.
 */
import { createHmac } from 'node:crypto'
import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import type { RequestOptions } from 'node:http'
import { gzipSync } from 'node:zlib'
import Mustache from 'mustache'
import type { ParameterValue } from './addon-store.ts'
import { addressesProblem, isNonPublicAddress, sendTimeUrlProblem, unresolvedProblem } from './url-safety.ts'
import { flagPage, slackCallProblem, slackChannels, slackMessage, slackOutcome } from './slack-app.ts'

const TIMEOUT_MS = 10_000
const MAX_ANSWER_BYTES = 64 * 1024
const DATADOG_EVENTS_URL = 'https://api.datadoghq.com/api/v1/events'

/** The providers Pennon sends to. */
export const SENDING_PROVIDERS = ['webhook', 'slack-app', 'teamsworkflow', 'datadog', 'new-relic'] as const

export interface SendOptions {
  /** Hosts that may be sent to though they resolve to non-public addresses (INTEGRATIONS_ALLOWED_HOSTS). */
  allowedHosts: readonly string[]
  /** The base of Slack's Web API (INTEGRATIONS_SLACK_API_URL). */
  slackApiUrl: string
  /** Where people reach Pennon (PUBLIC_URL), for links back to it; none when unknown. */
  publicUrl: string | undefined
}

export interface SendResult {
  state: 'success' | 'failed' | 'successWithErrors'
  stateDetails: string
  details: Record<string, unknown>
  /** A failure no later try can mend (a Slack event with no channel): recorded, and the next event goes. */
  final?: true
}

interface Outgoing {
  url: string
  headers: Record<string, string>
  body: string | Buffer
  /** What the delivery log shows was sent. */
  details: Record<string, unknown>
  /** How the reference names the request in its state details ("Webhook request", …). */
  label: string
  problems: string[]
}

type Event = Record<string, unknown> & { type: string; createdBy: string; tags?: { type: string; value: string }[]; data?: unknown }

/** The custom headers (a JSON object as text), or a problem to report; sent last, so they may replace the others. */
function customHeadersOf(parameters: Record<string, ParameterValue>, problems: string[]): Record<string, string> {
  if (typeof parameters.customHeaders !== 'string' || parameters.customHeaders.length <= 1) return {}
  try {
    return Object.fromEntries(
      Object.entries(JSON.parse(parameters.customHeaders) as Record<string, unknown>).map(([name, value]) => [
        name.toLowerCase(),
        String(value),
      ]),
    )
  } catch {
    problems.push('Could not parse the JSON in the customHeaders parameter.')
    return {}
  }
}

/** One line about an event (`{{eventMarkdown}}`, the cards' and Datadog's text). */
export function describe(event: Record<string, unknown>): string {
  const where = [
    event.featureName && `*${event.featureName}*`,
    event.environment && `in *${event.environment}*`,
    event.project && `(project *${event.project}*)`,
  ]
  return [`*${event.createdBy}*`, String(event.type), ...where.filter(Boolean)].join(' ')
}

const template = (parameters: Record<string, ParameterValue>) =>
  typeof parameters.bodyTemplate === 'string' && parameters.bodyTemplate.length > 1 ? parameters.bodyTemplate : undefined

/** The request for one event to one integration. */
export function outgoing(provider: string, parameters: Record<string, ParameterValue>, eventJson: string): Outgoing {
  const problems: string[] = []
  const event = JSON.parse(eventJson) as Event
  const custom = customHeadersOf(parameters, problems)
  const url = String(parameters.url ?? '')
  if (provider === 'teamsworkflow') {
    const card = {
      type: 'message',
      attachments: [
        {
          contentType: 'application/vnd.microsoft.card.adaptive',
          content: {
            type: 'AdaptiveCard',
            body: [
              {
                type: 'Container',
                items: [
                  { type: 'TextBlock', text: 'Feature flag update', style: 'heading' },
                  { type: 'TextBlock', text: describe(event), wrap: true },
                  {
                    type: 'FactSet',
                    facts: [
                      { title: 'User:', value: event.createdBy },
                      { title: 'Action:', value: event.type },
                    ],
                  },
                ],
              },
            ],
            $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
            version: '1.5',
          },
        },
      ],
    }
    return {
      url,
      headers: { 'content-type': 'application/json', ...custom },
      body: JSON.stringify(card),
      details: { body: card },
      label: 'Teams webhook request',
      problems,
    }
  }
  if (provider === 'datadog') {
    const bodyTemplate = template(parameters)
    const body = {
      text: bodyTemplate === undefined ? `%%% \n ${describe(event)} \n %%% ` : Mustache.render(bodyTemplate, { event }),
      title: 'Feature flag update',
      tags: (event.tags ?? []).map((tag) => `${tag.type}:${tag.value}`),
      ...(parameters.sourceTypeName ? { source_type_name: String(parameters.sourceTypeName) } : {}),
    }
    const target = url || DATADOG_EVENTS_URL
    return {
      url: target,
      headers: { 'content-type': 'application/json', 'dd-api-key': String(parameters.apiKey), ...custom },
      body: JSON.stringify(body),
      details: { url: target, body },
      label: 'Datadog Events API request',
      problems,
    }
  }
  if (provider === 'new-relic') {
    const body = {
      eventType: 'UnleashServiceEvent',
      unleashEventType: event.type,
      featureName: event.featureName ?? null,
      environment: event.environment ?? null,
      createdBy: event.createdBy,
      createdByUserId: event.createdByUserId,
      createdAt: Date.parse(String(event.createdAt)),
      ...(typeof event.data === 'object' && event.data !== null ? event.data : {}),
    }
    return {
      url,
      headers: { 'api-key': String(parameters.licenseKey), 'content-type': 'application/json', 'content-encoding': 'gzip', ...custom },
      body: gzipSync(JSON.stringify(body)),
      details: { body },
      label: 'New Relic Events API request',
      problems,
    }
  }
  const headers: Record<string, string> = { 'content-type': String(parameters.contentType || 'application/json') }
  if (parameters.authorization) headers.authorization = String(parameters.authorization)
  const bodyTemplate = template(parameters)
  const body =
    bodyTemplate === undefined
      ? eventJson
      : Mustache.render(bodyTemplate, { event, eventJson: JSON.stringify(eventJson), eventMarkdown: describe(event) })
  return {
    url,
    headers: { ...headers, ...custom },
    body,
    details: { url, contentType: headers['content-type'], body: bodyTemplate === undefined ? event : body },
    label: 'Webhook request',
    problems,
  }
}

/** Standard Webhooks headers for a body: its id, the time, and with a secret (`whsec_` base64) the signature. */
export function standardWebhookHeaders(
  webhookId: string,
  body: string | Buffer,
  now: Date,
  secret?: ParameterValue,
): Record<string, string> {
  const timestamp = String(Math.floor(now.getTime() / 1000))
  const headers: Record<string, string> = { 'webhook-id': webhookId, 'webhook-timestamp': timestamp }
  if (typeof secret === 'string' && secret !== '') {
    const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64')
    const signed = createHmac('sha256', key).update(`${webhookId}.${timestamp}.`).update(body).digest('base64')
    headers['webhook-signature'] = `v1,${signed}`
  }
  return headers
}

export async function send(
  provider: string,
  parameters: Record<string, ParameterValue>,
  eventJson: string,
  webhookId: string,
  options: SendOptions,
): Promise<SendResult> {
  const { allowedHosts } = options
  if (provider === 'slack-app') return sendToSlack(parameters, JSON.parse(eventJson) as Event, webhookId, options)
  const request = outgoing(provider, parameters, eventJson)
  const headers = { ...request.headers, ...standardWebhookHeaders(webhookId, request.body, new Date(), parameters.signingSecret) }
  const answer = sendTimeUrlProblem(request.url, allowedHosts) ?? (await post(request.url, headers, request.body, allowedHosts))
  const problem = typeof answer === 'string' ? answer : answer.refused
  const status = typeof answer === 'string' ? NO_ANSWER.status : answer.status
  const ok = status >= 200 && status < 300
  const line = `${request.label} ${ok ? 'was successful' : 'failed'} with status code: ${status}.`
  return {
    state: ok ? (request.problems.length > 0 ? 'successWithErrors' : 'success') : 'failed',
    stateDetails: [...request.problems, ...(problem ? [`The URL ${problem}.`] : []), line].join('\n'),
    details: request.details,
  }
}

/** One chat.postMessage per channel, side by side (as the reference); each channel's call succeeds or fails on its own. */
async function sendToSlack(
  parameters: Record<string, ParameterValue>,
  event: Event,
  webhookId: string,
  { allowedHosts, slackApiUrl, publicUrl }: SendOptions,
): Promise<SendResult> {
  const channels = slackChannels(event.tags, parameters.defaultChannels)
  if (channels.length === 0) {
    return {
      state: 'failed',
      stateDetails: `No Slack channels found for event ${event.type}.`,
      details: { channels, message: '' },
      final: true,
    }
  }
  const message = slackMessage(describe(event), flagPage(publicUrl, event))
  const url = `${slackApiUrl}/chat.postMessage`
  const problem = sendTimeUrlProblem(url, allowedHosts)
  const problems = await Promise.all(
    channels.map(async (channel) => {
      if (problem) return `The Slack API URL ${problem}.`
      const body = JSON.stringify({ channel, text: message.text, blocks: message.blocks, unfurl_links: false })
      const headers = {
        'content-type': 'application/json; charset=utf-8',
        authorization: `Bearer ${String(parameters.accessToken)}`,
        ...standardWebhookHeaders(webhookId, body, new Date()),
      }
      const answer = await post(url, headers, body, allowedHosts)
      if (answer.refused !== undefined) return `The Slack API URL ${answer.refused}.`
      return slackCallProblem(answer === NO_ANSWER ? undefined : answer.status, answer.body)
    }),
  )
  return { ...slackOutcome(problems), details: { channels, message: message.message } }
}

interface Answer {
  /** 500 when there was none (refused, unreachable, too slow). */
  status: number
  /** At most MAX_ANSWER_BYTES of it. */
  body: Buffer
  /** Why no connection was made: the host's addresses refused at connect time (url-safety.ts). */
  refused?: string
}

const NO_ANSWER: Answer = { status: 500, body: Buffer.alloc(0) }

function post(url: string, headers: Record<string, string>, body: string | Buffer, allowedHosts: readonly string[]): Promise<Answer> {
  const target = new URL(url)
  const allowed = allowedHosts.includes(target.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase())
  // Checked where the connection is made: the address actually used (the only lookup of a send).
  let refused: string | undefined
  const lookup: RequestOptions['lookup'] = (hostname, options, callback) =>
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) {
        refused = unresolvedProblem(hostname)
        return callback(error, '', 4)
      }
      const usable = addresses.filter((address) => allowed || !isNonPublicAddress(address.address))
      if (usable.length === 0) {
        refused = addressesProblem(addresses.map((address) => address.address))
        return callback(new Error('non-public address'), '', 4)
      }
      const wantsAll = (options as { all?: boolean }).all === true
      if (wantsAll) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, usable)
      callback(null, usable[0]!.address, usable[0]!.family)
    })
  return new Promise((resolve) => {
    // As CommonJS: an ESM import of 'node:http' loads Node's fetch too (http/server-factory.ts).
    const send = process.getBuiltinModule(target.protocol === 'https:' ? 'node:https' : 'node:http').request
    let request: ReturnType<typeof send>
    try {
      request = send(target, {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        lookup,
        timeout: TIMEOUT_MS,
      })
    } catch {
      // A header Node will not send (a name or value with characters HTTP forbids): a failed try, retried as any other.
      return resolve(NO_ANSWER)
    }
    const timer = setTimeout(() => request.destroy(new Error('timeout')), TIMEOUT_MS)
    request.on('response', (response) => {
      const chunks: Buffer[] = []
      let read = 0
      response.on('data', (chunk: Buffer) => {
        read += chunk.length
        if (read > MAX_ANSWER_BYTES) response.destroy()
        else chunks.push(chunk)
      })
      response.on('close', () => {
        clearTimeout(timer)
        resolve({ status: response.statusCode ?? 500, body: Buffer.concat(chunks) })
      })
    })
    request.on('timeout', () => request.destroy(new Error('timeout')))
    request.on('error', () => {
      clearTimeout(timer)
      resolve(refused === undefined ? NO_ANSWER : { ...NO_ANSWER, refused })
    })
    request.end(body)
  })
}
