/**
 * A real OpenID provider (oidc-provider, certified) in a process of its own, for the single sign-on
 * tests: it listens on 127.0.0.1 (its issuer `http://127.0.0.1:<port>`), with the clients it is
 * given on the command line and its development sign-in pages (any login, any password). The
 * login is the person's email, verified unless it starts with `unverified`; `name` is the part
 * before the `@`, and `groups` the login's labels after a `+` (`ann+admins@x.test`: ["admins"]).
 * Run by startIssuer(); prints its port on its first line. Options: how long its authorization
 * codes last, and a clock that runs behind (its tokens dated in the past, as at a provider whose
 * clock is wrong).
 */
import { spawn } from 'node:child_process'
import { generateKeyPairSync } from 'node:crypto'
import { once } from 'node:events'
import { createServer } from 'node:http'
import Provider from 'oidc-provider'

export interface IssuerClient {
  client_id: string
  client_secret: string
  redirect_uris: string[]
  post_logout_redirect_uris?: string[]
}

export interface IssuerOptions {
  /** Seconds an authorization code lasts (oidc-provider's `ttl.AuthorizationCode`; its default is 60). */
  authorizationCodeSeconds?: number
  /** Seconds the provider's clock runs behind the real time (0: on time). */
  clockBehindSeconds?: number
}

if (process.argv[2] === 'serve') {
  const clients = JSON.parse(process.argv[3] ?? '[]') as IssuerClient[]
  const options = JSON.parse(process.argv[4] ?? '{}') as IssuerOptions
  if (options.clockBehindSeconds) {
    // The whole process's clock (the provider dates its tokens and codes by Date.now).
    const realNow = Date.now
    Date.now = () => realNow() - options.clockBehindSeconds! * 1000
  }
  const server = createServer()
  server.listen(0, '127.0.0.1', () => {
    const address = server.address()
    const port = typeof address === 'object' && address ? address.port : 0
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
    const provider = new Provider(`http://127.0.0.1:${port}`, {
      clients: clients.map((client) => ({ ...client, grant_types: ['authorization_code'], response_types: ['code'] })),
      jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: 'test-key', use: 'sig', alg: 'RS256' }] as never },
      cookies: { keys: ['a test key for the provider cookies'] },
      claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
      scopes: ['openid', 'email', 'profile', 'groups'],
      ...(options.authorizationCodeSeconds ? { ttl: { AuthorizationCode: options.authorizationCodeSeconds } } : {}),
      features: { devInteractions: { enabled: true }, rpInitiatedLogout: { enabled: true } },
      async findAccount(_ctx, login) {
        const [local = login] = login.split('@')
        const [name = local, ...groups] = local.split('+')
        return {
          accountId: login,
          claims: async () => ({ sub: login, email: login, email_verified: !login.startsWith('unverified'), name, groups }),
        }
      },
    })
    server.on('request', provider.callback())
    process.stdout.write(`${port}\n`)
  })
}

export interface Issuer {
  /** `http://127.0.0.1:<port>`, the issuer's identifier. */
  url: string
  stop(): Promise<void>
}

export async function startIssuer(clients: IssuerClient[], options: IssuerOptions = {}): Promise<Issuer> {
  const child = spawn(process.execPath, [new URL(import.meta.url).pathname, 'serve', JSON.stringify(clients), JSON.stringify(options)], {
    stdio: ['ignore', 'pipe', 'ignore'],
  })
  const [first] = (await once(child.stdout, 'data')) as [Buffer]
  return {
    url: `http://127.0.0.1:${Number(first.toString().trim())}`,
    stop: async () => {
      child.kill()
      if (child.exitCode === null) await once(child, 'exit')
    },
  }
}
