/** Configuration read once from the environment, validated, frozen. Nothing else reads process.env. */
import { isIP } from 'node:net'

export type AuthType = 'open-source' | 'none'
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'

export interface Config {
  readonly port: number
  /** The address to listen on: `0.0.0.0` by default, `127.0.0.1` with AUTH_TYPE=none (docs/security.md). */
  readonly host: string
  /** `postgres://…` selects PostgreSQL; absent means the embedded SQLite file. */
  readonly databaseUrl: string | undefined
  readonly databaseFile: string
  readonly authType: AuthType
  readonly initAdminApiTokens: readonly string[]
  readonly logLevel: LogLevel
  readonly bodyLimit: number
  readonly segmentValuesLimit: number
  readonly segmentsLimit: number
  /** Failed authentications one client address may make per minute before 429; 0 turns the limit off. */
  readonly authFailuresPerMinute: number
  /** A request must arrive whole (headers and body) within this many milliseconds. */
  readonly requestTimeoutMs: number
  readonly headersTimeoutMs: number
  /** Browser origins allowed by CORS; empty means CORS is off. */
  readonly corsOrigins: readonly string[]
  /** Origins whose pages may call the frontend API (and OFREP) while no admin has set them (POST /api/admin/ui-config/cors); `*`: any. */
  readonly frontendApiOrigins: readonly string[]
  /**
   * Whose X-Forwarded-For names the client (its address is what the failure throttle counts by):
   * nobody (false), everybody (true), the last `n` proxies (a hop count), or the proxies at these
   * addresses and CIDR ranges.
   */
  readonly trustProxy: TrustProxy
  /** How often SDK metrics held in memory are written, in milliseconds. */
  readonly metricsFlushMs: number
  /**
   * How often OpenFeature evaluations counted in memory are handed to the metrics service, in
   * milliseconds: each hand-over writes a row per flag answered and application, however many
   * requests it counts.
   */
  readonly ofrepUsageFlushMs: number
  /** Applications SDK metrics may record in all (docs/metrics.md, "Limits"): reports of new ones past it are ignored. */
  readonly metricsMaxApplications: number
  /** Of those, how many one client or frontend token may have introduced. */
  readonly metricsApplicationsPerToken: number
  /** SDK instances recorded per application; further instance ids are not recorded (their counts still are). */
  readonly metricsInstancesPerApplication: number
  /** Evaluations (environments × flags × context combinations) one advanced playground request may ask for. */
  readonly playgroundMaxEvaluations: number
  /** The longest playground answer, in characters of JSON (explanations repeat a flag's definition per context). */
  readonly playgroundMaxAnswerCharacters: number
  /** `streaming`: answers to polling SDKs carry `fetch-mode: streaming`, and SDKs that follow it switch to `/api/client/streaming`. */
  readonly clientFetchMode: 'polling' | 'streaming'
  /** Open `/api/client/streaming` connections at most (429 past it); 0 turns streaming off (SDKs are told to poll). */
  readonly streamingMaxConnections: number
  /** Of those, how many one token may hold (429 past it), so one token cannot take every slot. */
  readonly streamingMaxConnectionsPerToken: number
  /** How often an idle stream is sent an SSE comment, so proxies do not cut it. */
  readonly streamingHeartbeatMs: number
  /** Steps between states kept per scope for deltas; an SDK further behind is sent a hydration. */
  readonly deltaHistoryRevisions: number
  /** A signed-in session ends after this long without a request (docs/security.md). */
  readonly sessionIdleMs: number
  /** And this long after sign-in, whatever the activity. */
  readonly sessionMaxAgeMs: number
  /** `true`: session cookies are always `Secure`; `false` (default): when the request came over HTTPS (as TRUST_PROXY tells). */
  readonly secureCookies: boolean
  /** Where people reach Pennon (`https://flags.example.com`): the base of invite and reset links; absent: the request's own origin. */
  readonly publicUrl: string | undefined
  /** Failed sign-ins one address may make for one account per 15 minutes before 429; 0 turns the limit off. */
  readonly loginFailuresPerAccount: number
  /** The longest a personal access token may be made to last, in milliseconds (PAT_MAX_LIFETIME_DAYS). */
  readonly patMaxLifetimeMs: number
  /** The secret Unleash Edge signs its token requests with (POST /edge/issue-token), as the reference's EDGE_CLIENT_SECRET; none: refused. */
  readonly edgeClientSecret: string | undefined
  /** A person who has not signed in (nor used a personal token) for this many days, and was created before, is inactive. */
  readonly userInactivityDays: number
  /**
   * Host names Pennon answers to besides loopback names, IP addresses and PUBLIC_URL's host, in
   * lower case; `*.example.com` for any name under example.com. Checked with AUTH_TYPE=none, and
   * otherwise only when set (http/allowed-hosts.ts).
   */
  readonly allowedHosts: readonly string[]
  /** Hosts an integration may send to even when they resolve to loopback or private addresses (INTEGRATIONS_ALLOWED_HOSTS). */
  readonly integrationsAllowedHosts: readonly string[]
  /** The longest wait between two tries of a failed delivery, in seconds. */
  readonly integrationsRetryMaxSeconds: number
  /** How long a delivery keeps being tried before it is given up, in hours. */
  readonly integrationsRetentionHours: number
  /** How often undelivered events are looked for, besides right after each change, in milliseconds. */
  readonly integrationsPollMs: number
  /** The base of Slack's Web API, where slack-app integrations post (INTEGRATIONS_SLACK_API_URL), without a trailing slash. */
  readonly integrationsSlackApiUrl: string
  /** How often flags are scanned for newly potentially stale ones (their event written), in milliseconds. */
  readonly staleScanIntervalMs: number
  /** How often due scheduled change requests are looked for, in milliseconds. */
  readonly changeRequestSchedulerIntervalMs: number
  /** The SMTP server invite and reset emails go through (EMAIL_HOST and the rest); absent: no email, links are shown instead. */
  readonly email: EmailConfig | undefined
  /** Single sign-on set by OIDC_DISCOVER_URL and the rest (features/sso/); absent: set through the admin API. */
  readonly oidc: OidcEnvConfig | undefined
}

/** OpenID Connect as the environment sets it, in the shape of the admin API's settings (docs/authentication.md). */
export interface OidcEnvConfig {
  readonly enabled: boolean
  readonly discoverUrl: string
  readonly clientId: string
  readonly secret: string
  readonly autoCreate: boolean
  readonly defaultRootRole: 'Admin' | 'Editor' | 'Viewer'
  readonly emailDomains: string
  readonly enableSingleSignOut: boolean
  readonly acrValues: string
  readonly idTokenSigningAlgorithm: 'RS256' | 'RS384' | 'RS512'
  readonly addGroupsScope: boolean
  readonly groupJsonPath: string
  readonly rootRoleGroups: { readonly Admin: string[]; readonly Editor: string[]; readonly Viewer: string[] }
}

export interface EmailConfig {
  readonly host: string
  readonly port: number
  /** TLS from the start (port 465); false: STARTTLS when the server offers it. */
  readonly secure: boolean
  readonly user: string | undefined
  readonly password: string | undefined
  /** The From of every email: `Pennon <noreply@example.com>` or an address. */
  readonly sender: string
}

export type TrustProxy = boolean | number | readonly string[]

export class ConfigError extends Error {}

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']

function wholeNumber(env: Record<string, string | undefined>, key: string, fallback: number, min = 1, max = 2 ** 31 - 1): number {
  const raw = env[key]
  if (raw === undefined || raw === '') return fallback
  if (!/^[0-9]+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${key} must be a whole number from ${min} to ${max}; got ${JSON.stringify(raw)}`)
  }
  return Number(raw)
}

function slackApiUrl(raw: string | undefined): string {
  const value = raw || 'https://slack.com/api'
  if (!/^https?:\/\/[^/\s]+(\/[^\s]*)?$/.test(value)) {
    throw new ConfigError(
      `INTEGRATIONS_SLACK_API_URL must be an http:// or https:// URL like https://slack.com/api; got ${JSON.stringify(raw)}`,
    )
  }
  return value.replace(/\/+$/, '')
}

const TRUST_PROXY_FORMS =
  'true, false, a number of proxy hops, or comma-separated proxy addresses and CIDR ranges (10.0.0.1, 10.0.0.0/8, fd00::/8)'

/** A whole address, or a CIDR range whose prefix fits its family. */
function isAddressOrRange(entry: string): boolean {
  const [address = '', prefix, ...rest] = entry.split('/')
  const family = isIP(address)
  if (family === 0 || rest.length > 0) return false
  return prefix === undefined || (/^[0-9]{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128))
}

function trustProxy(raw: string | undefined): TrustProxy {
  const value = (raw ?? '').trim()
  if (value === '' || value === 'false') return false
  if (value === 'true') return true
  if (/^[0-9]+$/.test(value)) {
    if (Number(value) > 100)
      throw new ConfigError(`TRUST_PROXY as a number of proxy hops must be from 0 to 100; got ${JSON.stringify(raw)}`)
    return Number(value) === 0 ? false : Number(value)
  }
  const entries = value.split(',').map((entry) => entry.trim())
  const bad = entries.find((entry) => !isAddressOrRange(entry))
  if (bad !== undefined) throw new ConfigError(`TRUST_PROXY must be ${TRUST_PROXY_FORMS}; ${JSON.stringify(bad)} is none of these`)
  return Object.freeze(entries)
}

/** The limits of what SDK metrics may record (docs/metrics.md, "Limits"). */
function metricsLimits(env: Record<string, string | undefined>) {
  const metricsMaxApplications = wholeNumber(env, 'METRICS_MAX_APPLICATIONS', 1000, 1, 1_000_000)
  const metricsApplicationsPerToken = wholeNumber(env, 'METRICS_APPLICATIONS_PER_TOKEN', 100, 1, 1_000_000)
  if (metricsApplicationsPerToken > metricsMaxApplications) {
    throw new ConfigError('METRICS_APPLICATIONS_PER_TOKEN must not exceed METRICS_MAX_APPLICATIONS')
  }
  return {
    metricsMaxApplications,
    metricsApplicationsPerToken,
    metricsInstancesPerApplication: wholeNumber(env, 'METRICS_INSTANCES_PER_APPLICATION', 100, 1, 100_000),
  }
}

// A DNS name (labels of letters, digits, `-` and `_`), or `*.` and one: no scheme, no port, no path.
const HOST_NAME = /^(\*\.)?[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/

function allowedHosts(raw: string | undefined): readonly string[] {
  const entries = (raw ?? '')
    .split(',')
    .map((entry) => entry.trim().toLowerCase().replace(/\.$/, ''))
    .filter((entry) => entry !== '')
  const bad = entries.find((entry) => !HOST_NAME.test(entry) || entry.length > 253)
  if (bad !== undefined) {
    throw new ConfigError(
      `ALLOWED_HOSTS entries must be host names like flags.example.com or *.example.com (no scheme, no port; IP addresses need no entry); got ${JSON.stringify(bad)}`,
    )
  }
  return Object.freeze(entries)
}

/** The streams an instance holds, and how many of them one token may hold. */
function streamingLimits(env: Record<string, string | undefined>) {
  const streamingMaxConnections = wholeNumber(env, 'STREAMING_MAX_CONNECTIONS', 1000, 0, 1_000_000)
  // A tenth of the default limit: at least ten tokens' SDKs can stream, and 100 is more instances
  // than a service usually runs on one token; those past it poll, as SDKs do on any 429.
  const streamingMaxConnectionsPerToken = wholeNumber(env, 'STREAMING_MAX_CONNECTIONS_PER_TOKEN', 100, 1, 1_000_000)
  // Checked only when set: the default above a lowered STREAMING_MAX_CONNECTIONS is simply never reached.
  if (env.STREAMING_MAX_CONNECTIONS_PER_TOKEN && streamingMaxConnections > 0 && streamingMaxConnectionsPerToken > streamingMaxConnections) {
    throw new ConfigError('STREAMING_MAX_CONNECTIONS_PER_TOKEN must not exceed STREAMING_MAX_CONNECTIONS')
  }
  return { streamingMaxConnections, streamingMaxConnectionsPerToken }
}

function clientFetchMode(raw: string | undefined): 'polling' | 'streaming' {
  const value = raw || 'polling'
  if (value !== 'polling' && value !== 'streaming')
    throw new ConfigError(`CLIENT_FETCH_MODE must be "polling" or "streaming"; got ${JSON.stringify(raw)}`)
  return value
}

function booleanOf(env: Record<string, string | undefined>, key: string, fallback: boolean): boolean {
  const raw = env[key]
  if (raw === undefined || raw === '') return fallback
  if (raw !== 'true' && raw !== 'false') throw new ConfigError(`${key} must be "true" or "false"; got ${JSON.stringify(raw)}`)
  return raw === 'true'
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost'])

/**
 * Why an OpenID provider's address cannot be used, or undefined when it can: an http(s) URL,
 * https unless its host is a loopback address (a provider on this machine needs no certificate).
 */
export function issuerUrlProblem(url: string): string | undefined {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return 'must be a URL like https://login.example.com/.well-known/openid-configuration'
  }
  if (parsed.protocol === 'https:') return undefined
  if (parsed.protocol === 'http:' && LOOPBACK_HOSTS.has(parsed.hostname)) return undefined
  return 'must be an https:// URL (http:// only on a loopback address: 127.0.0.1, ::1 or localhost)'
}

/** Single sign-on from the environment, when OIDC_DISCOVER_URL is set. */
function oidcConfig(env: Record<string, string | undefined>): OidcEnvConfig | undefined {
  const discoverUrl = env.OIDC_DISCOVER_URL?.trim() || undefined
  if (discoverUrl === undefined) return undefined
  const problem = issuerUrlProblem(discoverUrl)
  if (problem) throw new ConfigError(`OIDC_DISCOVER_URL ${problem}; got ${JSON.stringify(discoverUrl)}`)
  const clientId = env.OIDC_CLIENT_ID?.trim() || ''
  const secret = env.OIDC_SECRET || ''
  if (clientId === '' || secret === '') throw new ConfigError('OIDC_DISCOVER_URL needs OIDC_CLIENT_ID and OIDC_SECRET')
  const defaultRootRole = env.OIDC_DEFAULT_ROOT_ROLE || 'Viewer'
  if (defaultRootRole !== 'Admin' && defaultRootRole !== 'Editor' && defaultRootRole !== 'Viewer')
    throw new ConfigError(`OIDC_DEFAULT_ROOT_ROLE must be Admin, Editor or Viewer; got ${JSON.stringify(defaultRootRole)}`)
  const algorithm = env.OIDC_ID_TOKEN_SIGNING_ALGORITHM || 'RS256'
  if (algorithm !== 'RS256' && algorithm !== 'RS384' && algorithm !== 'RS512')
    throw new ConfigError(`OIDC_ID_TOKEN_SIGNING_ALGORITHM must be RS256, RS384 or RS512; got ${JSON.stringify(algorithm)}`)
  return Object.freeze({
    enabled: booleanOf(env, 'OIDC_ENABLED', true),
    discoverUrl,
    clientId,
    secret,
    autoCreate: booleanOf(env, 'OIDC_AUTO_CREATE', false),
    defaultRootRole,
    emailDomains: env.OIDC_EMAIL_DOMAINS?.trim() ?? '',
    enableSingleSignOut: booleanOf(env, 'OIDC_ENABLE_SINGLE_SIGN_OUT', false),
    acrValues: env.OIDC_ACR_VALUES?.trim() ?? '',
    idTokenSigningAlgorithm: algorithm,
    addGroupsScope: booleanOf(env, 'OIDC_ADD_GROUPS_SCOPE', false),
    groupJsonPath: env.OIDC_GROUP_JSON_PATH?.trim() ?? '',
    rootRoleGroups: Object.freeze({
      Admin: listOf(env.OIDC_ADMIN_GROUPS),
      Editor: listOf(env.OIDC_EDITOR_GROUPS),
      Viewer: listOf(env.OIDC_VIEWER_GROUPS),
    }),
  })
}

const listOf = (text: string | undefined): string[] =>
  (text ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')

/** The SMTP settings, named as Unleash names them; none without EMAIL_HOST. */
function emailConfig(env: Record<string, string | undefined>): EmailConfig | undefined {
  const host = env.EMAIL_HOST?.trim() || undefined
  if (host === undefined) return undefined
  if (!/^[A-Za-z0-9._:[\]-]{1,253}$/.test(host))
    throw new ConfigError(`EMAIL_HOST must be a host name or an IP address; got ${JSON.stringify(host)}`)
  const sender = env.EMAIL_SENDER?.trim() || 'Pennon <noreply@pennon.local>'
  // A header: one line, and an address in it.
  if (sender.length > 320 || /[\r\n]/.test(sender) || !/[^\s@<>]+@[^\s@<>]+/.test(sender)) {
    throw new ConfigError(
      `EMAIL_SENDER must be an address like noreply@example.com or "Pennon <noreply@example.com>"; got ${JSON.stringify(sender)}`,
    )
  }
  return Object.freeze({
    host,
    port: wholeNumber(env, 'EMAIL_PORT', 587, 1, 65535),
    secure: booleanOf(env, 'EMAIL_SECURE', false),
    user: env.EMAIL_USER || undefined,
    password: env.EMAIL_PASSWORD || undefined,
    sender,
  })
}

export function loadConfig(env: Record<string, string | undefined>): Config {
  const port = env.PORT === undefined || env.PORT === '' ? 4242 : Number(env.PORT)
  if (!/^[0-9]+$/.test(env.PORT ?? '0') || port > 65535) {
    throw new ConfigError(`PORT must be a whole number from 0 to 65535; got ${JSON.stringify(env.PORT)}`)
  }

  const databaseUrl = env.DATABASE_URL || undefined
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must be a postgres:// or postgresql:// URL')
  }

  const authType = env.AUTH_TYPE || 'open-source'
  if (authType !== 'open-source' && authType !== 'none') {
    throw new ConfigError(`AUTH_TYPE must be "open-source" or "none"; got ${JSON.stringify(authType)}`)
  }

  const initAdminApiTokens = (env.INIT_ADMIN_API_TOKENS ?? '')
    .split(',')
    .map((token) => token.trim())
    .filter((token) => token !== '')
  for (const [index, token] of initAdminApiTokens.entries()) {
    // Never echo the token itself: it is a secret.
    if (!/^\*:\*\.[\x21-\x7e]{1,200}$/.test(token)) {
      throw new ConfigError(`INIT_ADMIN_API_TOKENS entry ${index + 1} must look like "*:*.<secret>" (printable characters, no spaces)`)
    }
  }

  const requestTimeout = wholeNumber(env, 'REQUEST_TIMEOUT_MS', 30_000, 100)
  if (wholeNumber(env, 'HEADERS_TIMEOUT_MS', 10_000, 100) > requestTimeout) {
    throw new ConfigError('HEADERS_TIMEOUT_MS must not exceed REQUEST_TIMEOUT_MS')
  }

  const logLevel = (env.LOG_LEVEL || 'info') as LogLevel
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}; got ${JSON.stringify(env.LOG_LEVEL)}`)
  }

  const corsOrigins = (env.CORS_ORIGINS ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter((o) => o !== '')
  for (const origin of corsOrigins) {
    if (!/^https?:\/\/[^/\s]+$/.test(origin)) {
      throw new ConfigError(
        `CORS_ORIGINS entries must be origins like https://admin.example.com (scheme and host, no path); got ${JSON.stringify(origin)}`,
      )
    }
  }

  // As the reference's UNLEASH_FRONTEND_API_ORIGINS: `*` or origins exactly as a URL's origin is written.
  const frontendApiOrigins = (env.FRONTEND_API_ORIGINS || '*')
    .split(',')
    .map((o) => o.trim())
    .filter((o) => o !== '')
  for (const origin of frontendApiOrigins) {
    let valid = origin === '*'
    try {
      valid ||= !origin.includes('*') && new URL(origin).origin === origin
    } catch {}
    if (!valid) {
      throw new ConfigError(
        `FRONTEND_API_ORIGINS entries must be * or origins like https://shop.example.com (scheme and host, no path); got ${JSON.stringify(origin)}`,
      )
    }
  }

  const publicUrl = env.PUBLIC_URL || undefined
  if (publicUrl !== undefined && !/^https?:\/\/[^/\s]+(\/[^\s]*)?$/.test(publicUrl)) {
    throw new ConfigError(`PUBLIC_URL must be an http:// or https:// URL like https://flags.example.com; got ${JSON.stringify(publicUrl)}`)
  }
  if (env.SECURE_COOKIES !== undefined && env.SECURE_COOKIES !== '' && env.SECURE_COOKIES !== 'true' && env.SECURE_COOKIES !== 'false') {
    throw new ConfigError(`SECURE_COOKIES must be "true" or "false"; got ${JSON.stringify(env.SECURE_COOKIES)}`)
  }

  return Object.freeze({
    port,
    // Without authentication, only this machine may reach Pennon unless HOST says otherwise (main.ts says which).
    host: env.HOST || (authType === 'none' ? '127.0.0.1' : '0.0.0.0'),
    databaseUrl,
    databaseFile: env.DATABASE_FILE || './data/pennon.sqlite',
    authType,
    initAdminApiTokens: Object.freeze(initAdminApiTokens),
    logLevel,
    bodyLimit: wholeNumber(env, 'BODY_LIMIT', 1024 * 1024),
    segmentValuesLimit: wholeNumber(env, 'SEGMENT_VALUES_LIMIT', 1000),
    segmentsLimit: wholeNumber(env, 'SEGMENTS_LIMIT', 300),
    authFailuresPerMinute: wholeNumber(env, 'AUTH_FAILURES_PER_MINUTE', 60, 0),
    requestTimeoutMs: wholeNumber(env, 'REQUEST_TIMEOUT_MS', 30_000, 100),
    headersTimeoutMs: wholeNumber(env, 'HEADERS_TIMEOUT_MS', 10_000, 100),
    corsOrigins: Object.freeze(corsOrigins),
    frontendApiOrigins: Object.freeze(frontendApiOrigins),
    trustProxy: trustProxy(env.TRUST_PROXY),
    metricsFlushMs: wholeNumber(env, 'METRICS_FLUSH_MS', 1000, 10, 3_600_000),
    ofrepUsageFlushMs: wholeNumber(env, 'OFREP_USAGE_FLUSH_MS', 10_000, 10, 3_600_000),
    ...metricsLimits(env),
    // The reference's limit by default; an operator with large instances may raise it (bench/playground.ts).
    playgroundMaxEvaluations: wholeNumber(env, 'PLAYGROUND_MAX_EVALUATIONS', 15_000, 1, 10_000_000),
    playgroundMaxAnswerCharacters: wholeNumber(env, 'PLAYGROUND_MAX_ANSWER_MB', 64, 1, 1024) * 1024 * 1024,
    clientFetchMode: clientFetchMode(env.CLIENT_FETCH_MODE),
    ...streamingLimits(env),
    streamingHeartbeatMs: wholeNumber(env, 'STREAMING_HEARTBEAT_MS', 30_000, 10, 3_600_000),
    deltaHistoryRevisions: wholeNumber(env, 'DELTA_HISTORY_REVISIONS', 100, 1, 100_000),
    sessionIdleMs: wholeNumber(env, 'SESSION_IDLE_MINUTES', 24 * 60, 1, 525_600) * 60_000,
    sessionMaxAgeMs: wholeNumber(env, 'SESSION_MAX_AGE_HOURS', 7 * 24, 1, 8_760) * 3_600_000,
    secureCookies: env.SECURE_COOKIES === 'true',
    publicUrl: publicUrl?.replace(/\/+$/, ''),
    loginFailuresPerAccount: wholeNumber(env, 'LOGIN_FAILURES_PER_ACCOUNT', 5, 0, 10_000),
    patMaxLifetimeMs: wholeNumber(env, 'PAT_MAX_LIFETIME_DAYS', 365, 1, 3_650) * 86_400_000,
    edgeClientSecret: env.EDGE_CLIENT_SECRET || undefined,
    userInactivityDays: wholeNumber(env, 'USER_INACTIVITY_THRESHOLD_IN_DAYS', 180, 1, 36_500),
    allowedHosts: allowedHosts(env.ALLOWED_HOSTS),
    integrationsAllowedHosts: (env.INTEGRATIONS_ALLOWED_HOSTS ?? '')
      .split(',')
      .map((host) => host.trim().toLowerCase())
      .filter((host) => host !== ''),
    integrationsRetryMaxSeconds: wholeNumber(env, 'INTEGRATIONS_RETRY_MAX_SECONDS', 600, 1, 86_400),
    integrationsRetentionHours: wholeNumber(env, 'INTEGRATIONS_RETENTION_HOURS', 24, 1, 8_760),
    integrationsPollMs: wholeNumber(env, 'INTEGRATIONS_POLL_MS', 1000, 10, 3_600_000),
    integrationsSlackApiUrl: slackApiUrl(env.INTEGRATIONS_SLACK_API_URL),
    staleScanIntervalMs: wholeNumber(env, 'STALE_SCAN_INTERVAL_SECONDS', 60, 1, 86_400) * 1000,
    changeRequestSchedulerIntervalMs: wholeNumber(env, 'CHANGE_REQUEST_SCHEDULER_INTERVAL_MS', 1000, 10, 3_600_000),
    email: emailConfig(env),
    oidc: oidcConfig(env),
  })
}
