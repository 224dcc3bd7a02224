/**
 * A small client of an Unleash-compatible admin API (Unleash or Pennon) over fetch: the
 * migration reads and writes only through it, so every write on Pennon is an audited API call.
 */
export interface ApiAnswer {
  status: number
  body: any
}

export class ApiError extends Error {
  readonly status: number
  readonly url: string
  constructor(method: string, url: string, status: number, text: string) {
    super(`${method} ${url} answered ${status}: ${text.slice(0, 500)}`)
    this.status = status
    this.url = url
  }
}

export interface AdminClient {
  /** The server's address, without a trailing slash. */
  base: string
  /** Any answer, as it came (status and parsed body). */
  request(method: string, path: string, body?: unknown, token?: string): Promise<ApiAnswer>
  /** A 2xx answer's body; anything else throws ApiError. */
  send(method: string, path: string, body?: unknown): Promise<any>
  get(path: string): Promise<any>
}

// A server that limits its request rate (Unleash's search API: 15 requests a minute by default)
// answers 429: waited out, as it says, so many archived flags still migrate. Bounded both ways.
const MAX_RATE_LIMIT_WAITS = 20
const MAX_WAIT_SECONDS = 120

/** The seconds a 429 asks to wait: Retry-After, else RateLimit-Reset, else 5; at most MAX_WAIT_SECONDS. */
function waitOf(response: Response): number {
  const said = Number(response.headers.get('retry-after') ?? response.headers.get('ratelimit-reset') ?? 5)
  return Math.min(MAX_WAIT_SECONDS, Number.isFinite(said) && said >= 0 ? said : 5)
}

/** `onWait`: told of each wait for a rate limit (the command line says it). */
export function createAdminClient(base: string, token: string, onWait: (seconds: number, path: string) => void = () => {}): AdminClient {
  const root = base.replace(/\/+$/, '')
  // fetch's own error says only "fetch failed": which request, and why (its cause), are what an operator needs.
  async function sent(method: string, path: string, init: RequestInit): Promise<Response> {
    try {
      return await fetch(`${root}${path}`, init)
    } catch (error) {
      const cause = (error as { cause?: { message?: string } }).cause?.message ?? (error as Error).message
      throw new Error(`${method} ${root}${path} failed: ${cause}`)
    }
  }
  async function request(method: string, path: string, body?: unknown, as = token): Promise<ApiAnswer> {
    const headers: Record<string, string> = { authorization: as, accept: 'application/json' }
    if (body !== undefined) headers['content-type'] = 'application/json'
    const init = { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }
    let response = await sent(method, path, init)
    for (let waits = 0; response.status === 429 && waits < MAX_RATE_LIMIT_WAITS; waits++) {
      const seconds = waitOf(response)
      await response.body?.cancel()
      onWait(seconds, path)
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000))
      response = await sent(method, path, init)
    }
    const text = await response.text()
    let parsed: unknown = text
    try {
      parsed = text === '' ? null : JSON.parse(text)
    } catch {
      // not JSON: kept as text for the error message
    }
    return { status: response.status, body: parsed }
  }
  async function send(method: string, path: string, body?: unknown): Promise<any> {
    const answer = await request(method, path, body)
    if (answer.status < 200 || answer.status > 299) {
      throw new ApiError(
        method,
        `${root}${path}`,
        answer.status,
        typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body),
      )
    }
    return answer.body
  }
  return { base: root, request, send, get: (path) => send('GET', path) }
}

/** A path segment, percent-encoded. */
export const seg = (value: string): string => encodeURIComponent(value)
