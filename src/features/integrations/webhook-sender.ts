/**
 * Sends one event to a webhook: the request the reference's webhook provider makes (Content-Type,
 * Authorization, the custom headers last; the event as JSON, or the Mustache template rendered),
 * plus Standard Webhooks headers (`webhook-id` the same for every attempt of one event, so a
 * receiver can drop a duplicate; `webhook-timestamp`; `webhook-signature` with a signing secret).
 * The connection goes only to an address checked public (or a host allowed by name) when it is
 * made, so a name re-pointed since the integration was saved is caught. No redirect is followed;
 * 10 s in all; at most 64 KiB of the answer is read.
 */
import { createHmac } from 'node:crypto'
import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import { request as httpRequest, type RequestOptions } from 'node:http'
import { request as httpsRequest } from 'node:https'
import Mustache from 'mustache'
import type { ParameterValue } from './addon-store.ts'
import { isNonPublicAddress, urlProblem } from './url-safety.ts'

const TIMEOUT_MS = 10_000
const MAX_ANSWER_BYTES = 64 * 1024

export interface SendResult {
  state: 'success' | 'failed' | 'successWithErrors'
  stateDetails: string
  details: Record<string, unknown>
}

/** The request for one event: headers and body. */
export function webhookRequest(parameters: Record<string, ParameterValue>, eventJson: string, webhookId: string, now: Date) {
  const problems: string[] = []
  const headers: Record<string, string> = { 'content-type': String(parameters.contentType || 'application/json') }
  if (parameters.authorization) headers.authorization = String(parameters.authorization)
  if (typeof parameters.customHeaders === 'string' && parameters.customHeaders.length > 1) {
    try {
      for (const [name, value] of Object.entries(JSON.parse(parameters.customHeaders) as Record<string, string>))
        headers[name.toLowerCase()] = String(value)
    } catch {
      problems.push('Could not parse the JSON in the customHeaders parameter.')
    }
  }
  const template = typeof parameters.bodyTemplate === 'string' && parameters.bodyTemplate.length > 1 ? parameters.bodyTemplate : undefined
  const event = JSON.parse(eventJson) as Record<string, unknown>
  const body =
    template === undefined
      ? eventJson
      : Mustache.render(template, { event, eventJson: JSON.stringify(eventJson), eventMarkdown: describe(event) })
  const timestamp = String(Math.floor(now.getTime() / 1000))
  headers['webhook-id'] = webhookId
  headers['webhook-timestamp'] = timestamp
  if (typeof parameters.signingSecret === 'string' && parameters.signingSecret !== '') {
    const key = Buffer.from(parameters.signingSecret.replace(/^whsec_/, ''), 'base64')
    headers['webhook-signature'] = `v1,${createHmac('sha256', key).update(`${webhookId}.${timestamp}.${body}`).digest('base64')}`
  }
  return { headers, body, problems, templated: template !== undefined }
}

/** One line about an event, for templates (`{{eventMarkdown}}`). */
function describe(event: Record<string, unknown>): string {
  const where = [
    event.featureName && `*${event.featureName}*`,
    event.environment && `in *${event.environment}*`,
    event.project && `(project *${event.project}*)`,
  ]
  return [`*${event.createdBy}*`, String(event.type), ...where.filter(Boolean)].join(' ')
}

export async function sendWebhook(
  parameters: Record<string, ParameterValue>,
  eventJson: string,
  webhookId: string,
  allowedHosts: readonly string[],
): Promise<SendResult> {
  const url = String(parameters.url)
  const { headers, body, problems, templated } = webhookRequest(parameters, eventJson, webhookId, new Date())
  const details = { url, contentType: headers['content-type'], body: templated ? body : (JSON.parse(eventJson) as unknown) }
  const problem = await urlProblem(url, allowedHosts)
  const status = problem ? 500 : await post(url, headers, body, allowedHosts)
  const ok = status >= 200 && status < 300
  const line = ok ? `Webhook request was successful with status code: ${status}.` : `Webhook request failed with status code: ${status}.`
  return {
    state: ok ? (problems.length > 0 ? 'successWithErrors' : 'success') : 'failed',
    stateDetails: [...problems, ...(problem ? [`The URL ${problem}.`] : []), line].join('\n'),
    details,
  }
}

/** The answer's status, or 500 when there was none (refused, unreachable, too slow). */
function post(url: string, headers: Record<string, string>, body: string, allowedHosts: readonly string[]): Promise<number> {
  const target = new URL(url)
  const allowed = allowedHosts.includes(target.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase())
  // Checked where the connection is made: the address actually used.
  const lookup: RequestOptions['lookup'] = (hostname, options, callback) =>
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 4)
      const usable = addresses.filter((address) => allowed || !isNonPublicAddress(address.address))
      if (usable.length === 0) return callback(new Error('non-public address'), '', 4)
      const wantsAll = (options as { all?: boolean }).all === true
      if (wantsAll) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, usable)
      callback(null, usable[0]!.address, usable[0]!.family)
    })
  return new Promise((resolve) => {
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest
    const request = send(target, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      lookup,
      timeout: TIMEOUT_MS,
    })
    const timer = setTimeout(() => request.destroy(new Error('timeout')), TIMEOUT_MS)
    request.on('response', (response) => {
      let read = 0
      response.on('data', (chunk: Buffer) => {
        read += chunk.length
        if (read > MAX_ANSWER_BYTES) response.destroy()
      })
      response.on('close', () => {
        clearTimeout(timer)
        resolve(response.statusCode ?? 500)
      })
      response.resume()
    })
    request.on('timeout', () => request.destroy(new Error('timeout')))
    request.on('error', () => {
      clearTimeout(timer)
      resolve(500)
    })
    request.end(body)
  })
}
