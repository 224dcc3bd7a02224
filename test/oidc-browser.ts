/**
 * A browser's part of an OpenID Connect sign-in, over HTTP with cookies and no redirect followed
 * by itself: Pennon through inject, the provider (test/oidc-issuer.ts) through fetch. The person
 * signs in at the provider's development pages and consents, or refuses.
 */
import assert from 'node:assert/strict'
import { call, type ApiResponse, type TestApp } from './test-app.ts'

/** Name → value, as a browser keeps them for one site (paths and expiry left aside: one flow at a time). */
class CookieJar {
  readonly cookies = new Map<string, string>()

  take(setCookies: readonly string[]): void {
    for (const line of setCookies) {
      const [pair = ''] = line.split(';')
      const at = pair.indexOf('=')
      const [name, value] = [pair.slice(0, at).trim(), pair.slice(at + 1).trim()]
      if (value === '' || /max-age=0\b/i.test(line) || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name)
      else this.cookies.set(name, value)
    }
  }

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ')
  }
}

const setCookiesOf = (header: string | string[] | number | undefined): string[] =>
  header === undefined ? [] : Array.isArray(header) ? header : [String(header)]

export function createOidcBrowser(pennon: TestApp, pennonOrigin: string) {
  const atPennon = new CookieJar()
  const atProvider = new CookieJar()

  /** A request to the provider, its cookies kept. */
  async function provider(url: string, form?: Record<string, string>): Promise<Response> {
    const response = await fetch(url, {
      method: form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: { cookie: atProvider.header(), ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      ...(form ? { body: new URLSearchParams(form).toString() } : {}),
    })
    atProvider.take(response.headers.getSetCookie())
    return response
  }

  /** A GET of Pennon with the browser's cookies for it, kept. */
  async function pennonGet(path: string, headers: Record<string, string> = {}): Promise<ApiResponse> {
    const response = await call(pennon, 'GET', path, undefined, { token: null, headers: { cookie: atPennon.header(), ...headers } })
    atPennon.take(setCookiesOf(response.headers['set-cookie']))
    return response
  }

  return {
    atPennon,
    pennonGet,

    /** GET /auth/oidc/login: the provider's authorization URL it redirects to. */
    async begin(headers: Record<string, string> = {}): Promise<string> {
      const login = await pennonGet('/auth/oidc/login', headers)
      assert.equal(login.status, 302, login.text)
      return String(login.headers.location)
    },

    /**
     * At the provider: signs in as `login` (an email), then consents (or refuses); answers the
     * URL of Pennon's callback the provider sends the browser to.
     */
    async atTheProvider(authorizationUrl: string, login: string, consent: 'consent' | 'refuse' = 'consent'): Promise<string> {
      let url = authorizationUrl
      for (let step = 0; step < 20; step++) {
        if (new URL(url).origin === new URL(pennonOrigin).origin) return url
        const page = await provider(url)
        if (page.status === 302 || page.status === 303) {
          url = new URL(page.headers.get('location')!, url).href
          continue
        }
        const html = await page.text()
        assert.equal(page.status, 200, html)
        const action = new URL(/action="([^"]+)"/.exec(html)![1]!, url).href
        const prompt = /name="prompt" value="(\w+)"/.exec(html)![1]
        const answer =
          prompt === 'login'
            ? await provider(action, { prompt, login, password: 'any' })
            : consent === 'consent'
              ? await provider(action, { prompt: 'consent' })
              : await provider(`${action}/abort`)
        url = new URL(answer.headers.get('location')!, action).href
      }
      throw new Error(`no way back to Pennon from ${authorizationUrl}`)
    },

    /** GET of the callback URL (from Pennon's origin on): Pennon's answer. */
    async callback(callbackUrl: string, headers: Record<string, string> = {}): Promise<ApiResponse> {
      const url = new URL(callbackUrl)
      return pennonGet(`${url.pathname}${url.search}`, headers)
    },

    /** The whole sign-in as `login`: Pennon's answer to the callback. */
    async signIn(login: string): Promise<ApiResponse> {
      return this.callback(await this.atTheProvider(await this.begin(), login))
    },

    /** The provider's answer to a URL it sent (an end-session page). */
    provider,
  }
}
