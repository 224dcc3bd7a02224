/**
 * The data of the (g620) case, issue 35's shape: what a user's `GET /api/frontend` met when it
 * fell from 1,263 to 291–526 req/s. 1,000 flags in a project of their own (`frontend-bench`),
 * each switched on in `development` with three strategies, in this order:
 *   1. flexibleRollout, rollout 10–100 % (10 + 37·i mod 91), stickiness default / userId /
 *      sessionId in turn, a `plan IN (pro, team, enterprise, business)` constraint; a segment on
 *      every 5th flag, two strategy variants (a JSON and a string payload) on every 10th;
 *   2. flexibleRollout 100 % with a `userId IN` constraint of 10 ids;
 *   3. `default` on every 4th flag, otherwise `remoteAddress` with two IPv4 addresses.
 * 20 segments: `region IN` 1–4 values, every other one also `tenant NOT_IN` 10 values.
 * Environment variants (three, one with a payload) on 100 flags.
 * A request's context: a random userId, sessionId, properties[plan], [region] and [tenant]. Some
 * 600–620 toggles and ~100 KB per answer. Where bench/sdk-data.ts's (g) data answers ~240 toggles,
 * this one has every switched-on flag evaluate `remoteAddress` (750 of them) and more of them enabled.
 *
 * `frontendShapePayload()` gives the same flags as GET /api/client/features would serve them, for
 * benches without a server (bench/frontend-evaluate.ts); `seedFrontendShape` writes them through
 * the admin API.
 */
import { randomInt } from 'node:crypto'
import type {
  ClientFeaturesPayload,
  ConstraintDefinition,
  FeatureDefinition,
  SegmentDefinition,
  StrategyDefinition,
  VariantDefinition,
} from '../src/features/evaluation/types.ts'

export const SHAPE_PROJECT = 'frontend-bench'
export const SHAPE_FLAGS = 1000
const SHAPE_SEGMENTS = 20
const USERS = 10_000
const TENANTS = 40
const REGIONS = ['eu-north', 'eu-west', 'eu-south', 'us-east', 'us-west', 'ap-south', 'ap-east', 'sa-east']
// 'free' one draw in ten: the plan constraint holds for 90 % of the contexts.
const PLANS = ['free', 'pro', 'pro', 'team', 'team', 'team', 'enterprise', 'enterprise', 'business', 'business']

export const shapeFlagName = (i: number) => `frontend-flag-${String(i).padStart(4, '0')}`
const tenant = (k: number) => `tenant-${k % TENANTS}`

/** The segments' constraints, in order (their ids are the server's). */
function segmentConstraints(k: number): ConstraintDefinition[] {
  const regions = Array.from({ length: 1 + (k % 4) }, (_, r) => REGIONS[(k + r * 3) % REGIONS.length]!)
  return [
    { contextName: 'region', operator: 'IN', values: regions },
    ...(k % 2 === 1
      ? [{ contextName: 'tenant', operator: 'NOT_IN', values: Array.from({ length: 10 }, (_, t) => tenant(k * 7 + t)) }]
      : []),
  ]
}

const strategyVariants = (i: number): VariantDefinition[] => [
  {
    name: 'blue',
    weight: 500,
    weightType: 'variable',
    stickiness: 'default',
    payload: { type: 'json', value: JSON.stringify({ flag: i, color: 'blue', sizes: [1, 2, 3] }) },
  },
  { name: 'green', weight: 500, weightType: 'variable', stickiness: 'default', payload: { type: 'string', value: `green-${i}` } },
]

const environmentVariants = (i: number): VariantDefinition[] => [
  { name: 'control', weight: 334, weightType: 'variable', stickiness: 'default' },
  { name: 'treatment', weight: 333, weightType: 'variable', stickiness: 'default', payload: { type: 'string', value: `treatment-${i}` } },
  { name: 'vip', weight: 333, weightType: 'variable', stickiness: 'default' },
]

/** The three strategies of flag i, `segment(k)` naming the k-th segment's id. */
function strategiesOf(i: number, segment: (k: number) => number): StrategyDefinition[] {
  const name = shapeFlagName(i)
  return [
    {
      name: 'flexibleRollout',
      parameters: { rollout: String(10 + ((37 * i) % 91)), stickiness: ['default', 'userId', 'sessionId'][i % 3]!, groupId: name },
      constraints: [{ contextName: 'plan', operator: 'IN', values: ['pro', 'team', 'enterprise', 'business'] }],
      segments: i % 5 === 0 ? [segment((i / 5) % SHAPE_SEGMENTS)] : [],
      variants: i % 10 === 0 ? strategyVariants(i) : [],
    },
    {
      name: 'flexibleRollout',
      parameters: { rollout: '100', stickiness: 'default', groupId: name },
      constraints: [
        { contextName: 'userId', operator: 'IN', values: Array.from({ length: 10 }, (_, k) => `user-${(i * 97 + k * 1009) % USERS}`) },
      ],
      segments: [],
      variants: [],
    },
    i % 4 === 0
      ? { name: 'default', parameters: {}, constraints: [], segments: [], variants: [] }
      : {
          name: 'remoteAddress',
          parameters: { IPs: `10.${i % 250}.0.1, 192.168.${(i * 7) % 250}.${1 + (i % 200)}` },
          constraints: [],
          segments: [],
          variants: [],
        },
  ]
}

const hasEnvironmentVariants = (i: number) => i % 10 === 3

/** The flags and segments as the client API serves them (segments apart), segment ids 1–20. */
export function frontendShapePayload(): Required<Pick<ClientFeaturesPayload, 'features' | 'segments'>> {
  const segments: SegmentDefinition[] = Array.from({ length: SHAPE_SEGMENTS }, (_, k) => ({
    id: k + 1,
    constraints: segmentConstraints(k),
  }))
  const features: FeatureDefinition[] = Array.from({ length: SHAPE_FLAGS }, (_, i) => ({
    name: shapeFlagName(i),
    enabled: true,
    impressionData: false,
    strategies: strategiesOf(i, (k) => k + 1),
    variants: hasEnvironmentVariants(i) ? environmentVariants(i) : [],
    dependencies: [],
  }))
  return { features, segments }
}

/** A random context's fields, as the frontend API's query names them. */
export function shapeContextFields(): Record<string, string> {
  return {
    userId: `user-${randomInt(USERS)}`,
    sessionId: String(randomInt(1_000_000_000)),
    'properties[plan]': PLANS[randomInt(PLANS.length)]!,
    'properties[region]': REGIONS[randomInt(REGIONS.length)]!,
    'properties[tenant]': tenant(randomInt(TENANTS)),
  }
}

export const shapeContextQuery = () => new URLSearchParams(shapeContextFields()).toString()

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

async function inParallel(count: number, concurrency: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await task(next++)
    }),
  )
}

/**
 * The same data in one request: the project and the 20 segments through the admin API, then the
 * 1,000 flags with their strategies, variants and switches as one `POST /api/admin/features-batch/import`
 * (what bench/guard.ts uses: seconds rather than the minute of some 5,000 admin requests on a
 * busy machine). Returns the same tokens as seedFrontendShape.
 */
export async function importFrontendShape(baseUrl: string, adminToken: string): Promise<{ frontend: string; client: string }> {
  const admin = `${baseUrl}/api/admin`
  await send('POST', `${admin}/projects`, adminToken, { id: SHAPE_PROJECT, name: 'Frontend bench (issue 35)' })
  const segments: { id: number; name: string }[] = []
  for (let k = 0; k < SHAPE_SEGMENTS; k++) {
    const name = `frontend-bench-segment-${k}`
    segments.push({ id: (await send('POST', `${admin}/segments`, adminToken, { name, constraints: segmentConstraints(k) })).id, name })
  }
  const names = Array.from({ length: SHAPE_FLAGS }, (_, i) => shapeFlagName(i))
  await send('POST', `${admin}/features-batch/import`, adminToken, {
    project: SHAPE_PROJECT,
    environment: 'development',
    data: {
      features: names.map((name) => ({ name, project: SHAPE_PROJECT, type: 'release' })),
      featureStrategies: names.flatMap((name, i) =>
        strategiesOf(i, (k) => segments[k]!.id).map((strategy) => ({ ...strategy, featureName: name })),
      ),
      featureEnvironments: names.map((name, i) => ({
        name,
        featureName: name,
        environment: 'development',
        enabled: true,
        variants: hasEnvironmentVariants(i) ? environmentVariants(i).map(({ weight: _, ...variant }) => variant) : [],
      })),
      segments,
      tagTypes: [],
    },
  })
  const token = async (type: 'client' | 'frontend') =>
    (
      await send('POST', `${admin}/api-tokens`, adminToken, {
        tokenName: `frontend-bench-${type}`,
        type,
        environment: 'development',
        projects: [SHAPE_PROJECT],
      })
    ).secret as string
  return { frontend: await token('frontend'), client: await token('client') }
}

/**
 * Writes the shape through the admin API — the project, 20 segments, then per flag its creation,
 * its three strategies, its variants and its switch in `development` — and returns a frontend
 * token and a client token for that project and environment.
 */
export async function seedFrontendShape(baseUrl: string, adminToken: string): Promise<{ frontend: string; client: string }> {
  const admin = `${baseUrl}/api/admin`
  await send('POST', `${admin}/projects`, adminToken, { id: SHAPE_PROJECT, name: 'Frontend bench (issue 35)' })
  const segmentIds: number[] = []
  for (let k = 0; k < SHAPE_SEGMENTS; k++) {
    const created = await send('POST', `${admin}/segments`, adminToken, {
      name: `frontend-bench-segment-${k}`,
      constraints: segmentConstraints(k),
    })
    segmentIds.push(created.id)
  }
  await inParallel(SHAPE_FLAGS, 10, async (i) => {
    const name = shapeFlagName(i)
    await send('POST', `${admin}/projects/${SHAPE_PROJECT}/features`, adminToken, { name })
    const place = `${admin}/projects/${SHAPE_PROJECT}/features/${name}/environments/development`
    for (const strategy of strategiesOf(i, (k) => segmentIds[k]!)) await send('POST', `${place}/strategies`, adminToken, strategy)
    if (hasEnvironmentVariants(i))
      await send(
        'PUT',
        `${place}/variants`,
        adminToken,
        environmentVariants(i).map(({ weight: _, ...variant }) => variant),
      )
    await send('POST', `${place}/on`, adminToken)
  })
  const token = async (type: 'client' | 'frontend') =>
    (
      await send('POST', `${admin}/api-tokens`, adminToken, {
        tokenName: `frontend-bench-${type}`,
        type,
        environment: 'development',
        projects: [SHAPE_PROJECT],
      })
    ).secret as string
  return { frontend: await token('frontend'), client: await token('client') }
}
