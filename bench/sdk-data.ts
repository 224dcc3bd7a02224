/**
 * The data and load of the SDK cases (f), (f′) and (g): strategies, segments, switches and
 * variants for the 1,000 flags seed.ts creates, written through the admin API, and a client and a
 * frontend token for `development`; then what autocannon asks and what the ceilings answer.
 *
 * Each flag gets three strategies in `development`, in this order:
 *   1. flexibleRollout: rollout (37·i mod 101)%, stickiness userId / sessionId / default in turn,
 *      a `plan IN (pro, team)` constraint on every third flag, one of 10 segments on every fourth,
 *      two strategy variants (with payloads) on every fifth;
 *   2. userWithId: a list of 20 user ids (of the 5,000 the load draws from);
 *   3. default, with two constraints of 8 kinds in turn (IN, NOT_IN, STR_STARTS_WITH, STR_CONTAINS,
 *      NUM_GT, SEMVER_GTE, DATE_AFTER, REGEX; on properties and standard fields), and one of the
 *      segments on every third.
 * Even flags are switched on (500); every tenth flag has three environment variants.
 * seedSdkDataWithShape adds (g620)'s data: issue 35's shape, in a project of its own (frontend-data.ts).
 */
import { randomInt } from 'node:crypto'
import type { LoadOptions } from './lib.ts'
import { flagName } from './seed.ts'
import { seedFrontendShape, shapeContextQuery } from './frontend-data.ts'

export const FLAGS = 1000
export const SEGMENTS = 10
const USERS = 5000
const REGIONS = ['eu-north', 'eu-west', 'us-east', 'us-west', 'ap-south', 'ap-east']
const COUNTRIES = ['se', 'no', 'dk', 'fi', 'de', 'fr', 'us', 'ca', 'in', 'jp']
const PLANS = ['free', 'pro', 'team', 'enterprise']

export interface SdkTokens {
  client: string
  frontend: string
  /** The frontend token of (g620)'s project (bench/frontend-data.ts), when its data was seeded. */
  shapeFrontend?: string
}

/** seedSdkData, then (g620)'s data (bench/frontend-data.ts: issue 35's shape, a project of its own). */
export async function seedSdkDataWithShape(baseUrl: string, adminToken: string): Promise<SdkTokens> {
  const tokens = await seedSdkData(baseUrl, adminToken)
  return { ...tokens, shapeFrontend: (await seedFrontendShape(baseUrl, adminToken)).frontend }
}

async function inParallel(count: number, concurrency: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await task(next++)
    }),
  )
}

async function send(method: string, url: string, token: string, body?: unknown): Promise<any> {
  const response = await fetch(url, {
    method,
    headers: { authorization: token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await response.text()
  if (!response.ok) throw new Error(`seeding ${method} ${url}: ${response.status} ${text}`)
  return text ? JSON.parse(text) : undefined
}

const rolloutVariants = (i: number) => [
  { name: 'blue', weightType: 'variable', stickiness: 'default', payload: { type: 'string', value: `blue-${i}` } },
  {
    name: 'green',
    weightType: 'variable',
    stickiness: 'default',
    payload: { type: 'json', value: JSON.stringify({ flag: i, color: 'green' }) },
  },
]

/** Two constraints of the default strategy: eight kinds in turn. */
function defaultConstraints(i: number): unknown[] {
  const pick = <T>(list: readonly T[], at: number) => list[at % list.length]!
  const kinds = [
    { contextName: 'country', operator: 'IN', values: [pick(COUNTRIES, i), pick(COUNTRIES, i + 3), pick(COUNTRIES, i + 6)] },
    { contextName: 'region', operator: 'NOT_IN', values: [pick(REGIONS, i)] },
    { contextName: 'email', operator: 'STR_STARTS_WITH', values: ['user-1', 'user-2'], caseInsensitive: true },
    { contextName: 'email', operator: 'STR_CONTAINS', values: ['@example.'] },
    { contextName: 'age', operator: 'NUM_GT', value: String(18 + (i % 40)) },
    { contextName: 'appVersion', operator: 'SEMVER_GTE', value: `${1 + (i % 3)}.${i % 10}.0` },
    { contextName: 'currentTime', operator: 'DATE_AFTER', value: '2024-01-01T00:00:00.000Z' },
    { contextName: 'userId', operator: 'REGEX', value: `^user-${i % 10}\\d*$` },
  ]
  return [kinds[i % 8], kinds[(i + 3) % 8]]
}

/**
 * Writes the SDK cases' data through the admin API (the 1,000 flags must exist) and creates the two
 * tokens (of `development`). `environments`: where each flag gets its strategies, variants and switch
 * (the playground's bench asks for two).
 */
export async function seedSdkData(
  baseUrl: string,
  adminToken: string,
  environments: readonly string[] = ['development'],
): Promise<SdkTokens> {
  const admin = `${baseUrl}/api/admin`
  const segments: number[] = []
  for (let k = 0; k < SEGMENTS; k++) {
    const segment = await send('POST', `${admin}/segments`, adminToken, {
      name: `sdk-bench-segment-${k}`,
      constraints: [
        { contextName: 'region', operator: 'IN', values: REGIONS.filter((_, r) => (r + k) % 3 !== 0) },
        ...(k % 2 === 0 ? [{ contextName: 'plan', operator: 'NOT_IN', values: ['free'] }] : []),
      ],
    })
    segments.push(segment.id)
  }
  await inParallel(FLAGS * environments.length, 10, async (k) => {
    const i = k % FLAGS
    const place = `${admin}/projects/default/features/${flagName(i)}/environments/${environments[Math.floor(k / FLAGS)]}`
    await send('POST', `${place}/strategies`, adminToken, {
      name: 'flexibleRollout',
      parameters: { rollout: String((37 * i) % 101), stickiness: ['userId', 'sessionId', 'default'][i % 3], groupId: flagName(i) },
      constraints: i % 3 === 0 ? [{ contextName: 'plan', operator: 'IN', values: ['pro', 'team'] }] : [],
      segments: i % 4 === 0 ? [segments[i % SEGMENTS]] : [],
      variants: i % 5 === 0 ? rolloutVariants(i) : [],
    })
    await send('POST', `${place}/strategies`, adminToken, {
      name: 'userWithId',
      parameters: { userIds: Array.from({ length: 20 }, (_, k) => `user-${(i * 131 + k * 251) % USERS}`).join(',') },
    })
    await send('POST', `${place}/strategies`, adminToken, {
      name: 'default',
      constraints: defaultConstraints(i),
      segments: i % 3 === 0 ? [segments[(i + 5) % SEGMENTS]] : [],
    })
    if (i % 10 === 0) {
      await send('PUT', `${place}/variants`, adminToken, [
        { name: 'control', weightType: 'variable', stickiness: 'userId' },
        { name: 'treatment', weightType: 'variable', stickiness: 'userId', payload: { type: 'string', value: `treatment-${i}` } },
        { name: 'vip', weightType: 'variable', stickiness: 'userId', overrides: [{ contextName: 'userId', values: ['user-1', 'user-2'] }] },
      ])
    }
    if (i % 2 === 0) await send('POST', `${place}/on`, adminToken)
  })
  const token = async (type: 'client' | 'frontend') =>
    (
      await send('POST', `${admin}/api-tokens`, adminToken, {
        tokenName: `sdk-bench-${type}`,
        type,
        environment: 'development',
        projects: ['default'],
      })
    ).secret as string
  return { client: await token('client'), frontend: await token('frontend') }
}

/** What server SDKs send: 5.2.0 takes segments apart. */
export const clientHeaders = (token: string) => ({ authorization: token, 'unleash-client-spec': '5.2.0' })

/** A random context as the frontend SDKs send it, in the query. */
export function randomContextQuery(): string {
  return new URLSearchParams(randomContextFields()).toString()
}

/** A random context's fields, named as in the frontend API's query (`properties[region]`). */
export function randomContextFields(): Record<string, string> {
  const pick = <T>(list: readonly T[]) => list[randomInt(list.length)]!
  return {
    userId: `user-${randomInt(USERS)}`,
    sessionId: String(randomInt(1_000_000_000)),
    appName: pick(['web', 'ios', 'android']),
    'properties[region]': pick(REGIONS),
    'properties[country]': pick(COUNTRIES),
    'properties[plan]': pick(PLANS),
    'properties[email]': `user-${randomInt(USERS)}@example.${pick(['com', 'org'])}`,
    'properties[age]': String(randomInt(13, 80)),
    'properties[appVersion]': `${randomInt(1, 4)}.${randomInt(10)}.${randomInt(10)}`,
  }
}

/** The frontend API's random context as an OpenFeature request body: the userId as targetingKey, properties as fields. */
export function randomOpenFeatureBody(): string {
  const context: Record<string, string> = {}
  for (const [name, value] of Object.entries(randomContextFields())) {
    const property = /^properties\[(.+)\]$/.exec(name)
    context[property ? property[1]! : name === 'userId' ? 'targetingKey' : name] = value
  }
  return JSON.stringify({ context })
}

/** A random context in the playground's shape: the frontend API's fields, properties apart. */
function randomPlaygroundContext(): Record<string, unknown> {
  const context: Record<string, unknown> = {}
  const properties: Record<string, string> = {}
  for (const [name, value] of Object.entries(randomContextFields())) {
    const property = /^properties\[(.+)\]$/.exec(name)
    if (property) properties[property[1]!] = value
    else context[name] = value
  }
  return { ...context, properties }
}

/** (i): the playground for every flag of `development` and a random context per request. */
export const playgroundLoad = (baseUrl: string, adminToken: string): Omit<LoadOptions, 'seconds'> => ({
  url: `${baseUrl}/api/admin/playground`,
  method: 'POST',
  headers: { 'content-type': 'application/json', authorization: adminToken },
  makeBody: () => JSON.stringify({ environment: 'development', projects: ['default'], context: randomPlaygroundContext() }),
  expectedStatus: 200,
})

/** An answer as Pennon sent it: what a ceiling replays. */
export interface RecordedAnswer {
  status: number
  /** The headers Pennon set (those node:http adds by itself left out: date, connection, keep-alive). */
  headers: Record<string, string>
  body: string
}

const ADDED_BY_NODE = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding'])

export async function recordAnswer(url: string, headers: Record<string, string>, expectedStatus: number): Promise<RecordedAnswer> {
  const response = await fetch(url, { headers })
  const body = await response.text()
  if (response.status !== expectedStatus) throw new Error(`GET ${url}: ${response.status}, not ${expectedStatus}: ${body.slice(0, 500)}`)
  const kept: Record<string, string> = {}
  response.headers.forEach((value, name) => {
    if (!ADDED_BY_NODE.has(name)) kept[name] = value
  })
  return { status: response.status, headers: kept, body }
}

/** What the ceilings of (f), (f′) and (g) replay, and the ETag (f′) sends. */
export interface SdkAnswers {
  features: RecordedAnswer
  notModified: RecordedAnswer
  /** The frontend answer of median size among 21 random contexts. */
  frontend: RecordedAnswer
  /** The same for (g620), when its data was seeded. */
  shapeFrontend?: RecordedAnswer
}

export async function recordSdkAnswers(baseUrl: string, tokens: SdkTokens): Promise<SdkAnswers> {
  const features = await recordAnswer(`${baseUrl}/api/client/features`, clientHeaders(tokens.client), 200)
  const notModified = await recordAnswer(
    `${baseUrl}/api/client/features`,
    { ...clientHeaders(tokens.client), 'if-none-match': features.headers.etag! },
    304,
  )
  const frontends: RecordedAnswer[] = []
  for (let k = 0; k < 21; k++)
    frontends.push(await recordAnswer(`${baseUrl}/api/frontend?${randomContextQuery()}`, { authorization: tokens.frontend }, 200))
  frontends.sort((a, b) => a.body.length - b.body.length)
  const answers: SdkAnswers = { features, notModified, frontend: frontends[10]! }
  if (tokens.shapeFrontend !== undefined) {
    const shaped: RecordedAnswer[] = []
    for (let k = 0; k < 21; k++)
      shaped.push(await recordAnswer(`${baseUrl}/api/frontend?${shapeContextQuery()}`, { authorization: tokens.shapeFrontend }, 200))
    shaped.sort((a, b) => a.body.length - b.body.length)
    answers.shapeFrontend = shaped[10]!
  }
  return answers
}

export interface SdkCase {
  key: 'f' | 'f304' | 'g' | 'g620'
  label: string
  options: Omit<LoadOptions, 'seconds'>
}

/** The three cases against a Pennon at `baseUrl`. */
export function sdkCases(baseUrl: string, tokens: SdkTokens, answers: SdkAnswers): SdkCase[] {
  const url = `${baseUrl}/api/client/features`
  return [
    {
      key: 'f',
      label: '(f) GET /api/client/features (1,000 flags × 3 strategies)',
      options: { url, headers: clientHeaders(tokens.client), expectedStatus: 200 },
    },
    {
      key: 'f304',
      label: '(f′) the same with If-None-Match → 304',
      options: { url, headers: { ...clientHeaders(tokens.client), 'if-none-match': answers.features.headers.etag! }, expectedStatus: 304 },
    },
    {
      key: 'g',
      label: '(g) GET /api/frontend, 1,000 flags, random context',
      options: {
        url: `${baseUrl}/api/frontend`,
        headers: { authorization: tokens.frontend },
        makePath: () => `/api/frontend?${randomContextQuery()}`,
        expectedStatus: 200,
      },
    },
    ...(tokens.shapeFrontend === undefined
      ? []
      : [
          {
            key: 'g620' as const,
            label: "(g620) GET /api/frontend, issue 35's shape: 1,000 flags of one project, ~610 toggles",
            options: {
              url: `${baseUrl}/api/frontend`,
              headers: { authorization: tokens.shapeFrontend },
              makePath: () => `/api/frontend?${shapeContextQuery()}`,
              expectedStatus: 200,
            },
          },
        ]),
  ]
}

export interface SdkCeiling {
  key: string
  /** bench/ceiling-server.ts's mode: `replay` (node:http) or `fastify-replay` (a bare Fastify app). */
  mode: 'replay' | 'fastify-replay'
  label: string
  answer: RecordedAnswer
  expectedStatus: number
}

/** The ceilings: bare node:http replaying each answer, and a bare Fastify app replaying (f′)'s. */
export function sdkCeilings(answers: SdkAnswers): SdkCeiling[] {
  const kb = (answer: RecordedAnswer) => `${(Buffer.byteLength(answer.body) / 1024).toFixed(0)} KB`
  return [
    {
      key: 'replay-f',
      mode: 'replay',
      label: `ceiling: node:http, the bytes and headers of (f) (${kb(answers.features)})`,
      answer: answers.features,
      expectedStatus: 200,
    },
    {
      key: 'replay-f304',
      mode: 'replay',
      label: 'ceiling: node:http, the 304 and headers of (f′)',
      answer: answers.notModified,
      expectedStatus: 304,
    },
    {
      key: 'fastify-f304',
      mode: 'fastify-replay',
      label: 'ceiling: bare Fastify, the 304 and headers of (f′)',
      answer: answers.notModified,
      expectedStatus: 304,
    },
    {
      key: 'replay-g',
      mode: 'replay',
      label: `ceiling: node:http, one answer of (g) (${kb(answers.frontend)})`,
      answer: answers.frontend,
      expectedStatus: 200,
    },
    ...(answers.shapeFrontend === undefined
      ? []
      : [
          {
            key: 'replay-g620',
            mode: 'replay' as const,
            label: `ceiling: node:http, one answer of (g620) (${kb(answers.shapeFrontend)})`,
            answer: answers.shapeFrontend,
            expectedStatus: 200,
          },
        ]),
  ]
}

/** Which ceiling each case is compared with (the target's), then which others. */
export const SDK_CEILING_OF: Record<string, string> = { f: 'replay-f', f304: 'replay-f304', g: 'replay-g', g620: 'replay-g620' }
export const SDK_ALSO_COMPARED: Record<string, string[]> = { f304: ['fastify-f304'] }
