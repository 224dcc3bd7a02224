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
  constructor(method: string, url: string, status: number, text: string) {
    super(`${method} ${url} answered ${status}: ${text.slice(0, 500)}`)
    this.status = status
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

export function createAdminClient(base: string, token: string): AdminClient {
  const root = base.replace(/\/+$/, '')
  async function request(method: string, path: string, body?: unknown, as = token): Promise<ApiAnswer> {
    const headers: Record<string, string> = { authorization: as, accept: 'application/json' }
    if (body !== undefined) headers['content-type'] = 'application/json'
    const response = await fetch(`${root}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
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
      throw new ApiError(method, `${root}${path}`, answer.status, typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body))
    }
    return answer.body
  }
  return { base: root, request, send, get: (path) => send('GET', path) }
}

/** A path segment, percent-encoded. */
export const seg = (value: string): string => encodeURIComponent(value)
