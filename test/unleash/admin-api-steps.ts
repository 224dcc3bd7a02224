/**
 * The scenario of admin-api.reference.ts: requests sent, in order, to Unleash 8.2 and to
 * Pennon, and how each answer is normalised before the two are compared. Every step compares the
 * status; the body too, after `view` (by default: ids, secrets and timestamps removed). Where a
 * `view` leaves out more, its comment names the difference (docs/api.md says why).
 */

import { setTimeout as sleep } from 'node:timers/promises'
import { isDeepStrictEqual } from 'node:util'

export interface Server {
  name: 'unleash' | 'pennon'
  /** Ids and secrets each server answered, for later steps' paths and bodies. */
  saved: Record<string, string | number>
  send(method: Method, path: string, body?: unknown): Promise<{ status: number; body: unknown }>
}
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH'
type Saved = Server['saved']

export interface Step {
  name: string
  method: Method
  path: string | ((saved: Saved) => string)
  body?: unknown | ((saved: Saved) => unknown)
  /** What of the body is compared (default: all of it, `withoutVolatile`); `null`: the status only. */
  view?: ((body: any) => unknown) | null
  /**
   * A documented difference of the whole answer: each server's answer is checked against its own
   * (Unleash's as `unleash`, Pennon's as `pennon`), then both compare as `unleash`.
   */
  differs?: { unleash: Answer; pennon: Answer }
  /** `false`: an error answer compares by status alone (the reference's has no name). */
  errorName?: false
  /**
   * Asked of the reference's answer: sent again (every 250 ms, 15 s at most) until this holds, for
   * what its background jobs write late on a busy host (a lifecycle stage that has not come yet).
   */
  until?: (body: any) => boolean
  /** Keeps what a later step needs from this answer. */
  save?: (body: any, saved: Saved) => void
}

export interface Answer {
  status: number
  body?: unknown
  name?: unknown
}

/** Pennon names every 400 of a request's shape or values ValidationError, where the reference says BadDataError. */
const errorName = (body: any) => (body?.name === 'BadDataError' ? 'ValidationError' : body?.name)

const VOLATILE = new Set(['id', 'createdAt', 'updatedAt', 'seenAt', 'lastSeenAt', 'secret', 'createdByUserId', 'groupId', 'enteredStageAt'])

/** `value` without ids, secrets and timestamps, at any depth. */
export function withoutVolatile(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutVolatile)
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !VOLATILE.has(key))
      .map(([key, v]) => [key, withoutVolatile(v)]),
  )
}

export const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
export const pick = (value: any, keys: string[]) => Object.fromEntries(keys.filter((k) => k in value).map((k) => [k, value[k]]))

export async function compared(step: Step, server: Server): Promise<Answer> {
  const answer = await normalised(step, server)
  if (!step.differs) return answer
  return isDeepStrictEqual(answer, step.differs[server.name]) ? step.differs.unleash : answer
}

async function normalised(step: Step, server: Server): Promise<Answer> {
  const path = typeof step.path === 'function' ? step.path(server.saved) : step.path
  const body = typeof step.body === 'function' ? (step.body as (saved: Saved) => unknown)(server.saved) : step.body
  let answer = await server.send(step.method, path, body)
  for (
    const deadline = Date.now() + 15_000;
    step.until && server.name === 'unleash' && !step.until(answer.body) && Date.now() < deadline;
  ) {
    await sleep(250)
    answer = await server.send(step.method, path, body)
  }
  if (answer.status < 300) step.save?.(answer.body, server.saved)
  // An error compares by status and name: the messages are each server's own words.
  if (answer.status >= 300)
    return step.errorName === false ? { status: answer.status } : { status: answer.status, name: errorName(answer.body) }
  if (step.view === null) return { status: answer.status }
  return { status: answer.status, body: (step.view ?? withoutVolatile)(answer.body) }
}

const FEATURES = '/api/admin/projects/default/features'
export const flag = (name: string) => `/api/admin/projects/default/features/${name}`
const today = new Date().toISOString().slice(0, 10)

/**
 * A flag in a search page, as both show it. Left out: `createdBy` (the reference names the admin
 * token's user "admin" with its avatar URL; Pennon has no avatars), `lifecycle` (Pennon keeps no
 * lifecycle stages but `archived`), environments' hourly `yes`/`no` counts, change requests,
 * milestones and release plans (Pennon has none).
 */
const searchedFlag = (f: any) => ({
  ...pick(f, ['name', 'description', 'type', 'project', 'stale', 'impressionData', 'dependencyType', 'favorite', 'segments', 'tags']),
  environments: f.environments.map((e: any) =>
    pick(e, ['name', 'enabled', 'type', 'sortOrder', 'variantCount', 'hasStrategies', 'hasEnabledStrategies']),
  ),
})
const searchPage = (body: any) => ({ total: body.total, features: body.features.map(searchedFlag) })
const namesFound = (body: any) => ({ total: body.total, features: body.features.map((f: any) => f.name) })
const search = (query: string): Step => ({
  name: `search flags ?${query}`,
  method: 'GET',
  path: `/api/admin/search/features?${query}`,
  view: searchPage,
})

/**
 * An event as both record it; `label` and `summary` are the reference's markdown renderings, which
 * Pennon has not. A token's events carry the token as each answers it (without the reference's
 * `alias`, `secure` and deprecated `project`), so only the fields both have are compared.
 */
const event = (e: any) => {
  const kept = withoutVolatile(pick(e, ['type', 'createdBy', 'featureName', 'project', 'environment', 'data', 'preData', 'tags'])) as any
  const token = (t: any) => t && pick(t, ['tokenName', 'type', 'environment', 'projects'])
  return e.type.startsWith('api-token-') ? { ...kept, data: token(kept.data), preData: token(kept.preData) } : kept
}
const eventPage = (body: any) => ({ total: body.total, events: body.events.map(event) })
export const eventSearch = (query: string): Step => ({
  name: `search events ?${query}`,
  method: 'GET',
  path: `/api/admin/search/events?${query}`,
  view: eventPage,
})

const strategy = {
  name: 'flexibleRollout',
  parameters: { rollout: '50', stickiness: 'default', groupId: 'x' },
  constraints: [],
  variants: [
    { name: 'blue', weight: 500, weightType: 'variable', stickiness: 'default' },
    { name: 'green', weight: 500, weightType: 'variable', stickiness: 'default' },
  ],
}

export const STEPS: Step[] = [
  // The flags the searches find.
  {
    name: 'create alpha-checkout',
    method: 'POST',
    path: FEATURES,
    body: { name: 'alpha-checkout', description: 'New checkout', type: 'release' },
    view: null,
  },
  {
    name: 'create beta-search',
    method: 'POST',
    path: FEATURES,
    body: { name: 'beta-search', description: 'Search v2', type: 'experiment' },
    view: null,
  },
  {
    name: 'create gamma-kill',
    method: 'POST',
    path: FEATURES,
    body: { name: 'gamma-kill', type: 'kill-switch', impressionData: true },
    view: null,
  },
  {
    name: 'create delta-ops',
    method: 'POST',
    path: FEATURES,
    body: { name: 'delta-ops', description: 'checkout ops', type: 'operational' },
    view: null,
  },
  {
    name: 'mark delta-ops stale',
    method: 'POST',
    path: '/api/admin/projects/default/stale',
    body: { features: ['delta-ops'], stale: true },
    view: null,
  },
  {
    name: 'tag alpha-checkout',
    method: 'POST',
    path: '/api/admin/features/alpha-checkout/tags',
    body: { type: 'simple', value: 'team-a' },
  },
  { name: 'tag beta-search', method: 'POST', path: '/api/admin/features/beta-search/tags', body: { type: 'simple', value: 'team-b' } },
  {
    name: 'strategy on alpha-checkout',
    method: 'POST',
    path: `${flag('alpha-checkout')}/environments/development/strategies`,
    body: strategy,
    view: null,
  },
  { name: 'alpha-checkout on in development', method: 'POST', path: `${flag('alpha-checkout')}/environments/development/on`, view: null },

  // Flag search.
  search('limit=50'),
  search('query=checkout'),
  search('query=CHECKOUT,search'),
  search('project=IS:default&type=IS_ANY_OF:release,experiment'),
  search('type=IS_NONE_OF:release'),
  search('tag=INCLUDE:simple:team-a'),
  search('tag=INCLUDE_ANY_OF:simple:team-a,simple:team-b&sortBy=name&sortOrder=desc'),
  search('tag=DO_NOT_INCLUDE:simple:team-a&sortBy=name'),
  search('state=IS:stale'),
  search('state=IS:active&sortBy=type'),
  search(`createdAt=IS_ON_OR_AFTER:${today}&sortBy=name`),
  // The reference lists, on each flag found by `status`, only the environments filtered on; Pennon all of them.
  { ...search('status=development:enabled&status=production:disabled'), view: namesFound },
  { ...search('status=production:enabled&status=development:disabled'), view: namesFound },
  search('sortBy=name&sortOrder=desc&offset=1&limit=2'),
  search('sortBy=createdAt&sortOrder=asc&offset=3&limit=2'),

  // Flag links.
  {
    name: 'add a link',
    method: 'POST',
    path: `${flag('alpha-checkout')}/link`,
    body: { url: 'https://example.com/ticket/1', title: 'Ticket' },
  },
  { name: 'add a link without a scheme', method: 'POST', path: `${flag('alpha-checkout')}/link`, body: { url: 'example.com/docs' } },
  {
    name: 'the flag shows its links',
    method: 'GET',
    path: flag('alpha-checkout'),
    view: (f) => withoutVolatile(f.links),
    save: (f, saved) => {
      saved.link = f.links[0].id
    },
  },
  {
    name: 'edit a link',
    method: 'PUT',
    path: (s) => `${flag('alpha-checkout')}/link/${s.link}`,
    body: { url: 'https://example.com/ticket/2', title: 'Ticket 2' },
  },
  { name: 'the edited link', method: 'GET', path: flag('alpha-checkout'), view: (f) => withoutVolatile(f.links) },
  { name: 'delete a link', method: 'DELETE', path: (s) => `${flag('alpha-checkout')}/link/${s.link}` },
  { name: 'one link left', method: 'GET', path: flag('alpha-checkout'), view: (f) => withoutVolatile(f.links) },

  // Validation routes: they write nothing.
  { name: 'validate a free flag name', method: 'POST', path: '/api/admin/features/validate', body: { name: 'free-name' } },
  { name: 'validate a taken flag name', method: 'POST', path: '/api/admin/features/validate', body: { name: 'alpha-checkout' } },
  { name: 'validate a flag name with a space', method: 'POST', path: '/api/admin/features/validate', body: { name: 'not url friendly' } },
  {
    name: 'validate a constraint',
    method: 'POST',
    path: '/api/admin/constraints/validate',
    body: { contextName: 'userId', operator: 'IN', values: ['a', 'b'] },
  },
  {
    name: 'validate a bad date constraint',
    method: 'POST',
    path: '/api/admin/constraints/validate',
    body: { contextName: 'currentTime', operator: 'DATE_AFTER', value: 'soon' },
  },
  {
    name: 'create a segment',
    method: 'POST',
    path: '/api/admin/segments',
    body: { name: 'beta-users', constraints: [{ contextName: 'userId', operator: 'IN', values: ['u1'] }] },
    view: null,
  },
  { name: 'validate a free segment name', method: 'POST', path: '/api/admin/segments/validate', body: { name: 'free-segment' } },
  { name: 'validate a taken segment name', method: 'POST', path: '/api/admin/segments/validate', body: { name: 'beta-users' } },
  { name: 'validate an empty segment name', method: 'POST', path: '/api/admin/segments/validate', body: { name: '' } },
  {
    name: 'validate a constraint with an unknown operator',
    method: 'POST',
    path: '/api/admin/constraints/validate',
    body: { contextName: 'userId', operator: 'IS_ODD', values: ['a'] },
  },
  {
    name: 'validate a number constraint',
    method: 'POST',
    path: '/api/admin/constraints/validate',
    body: { contextName: 'userId', operator: 'NUM_GT', value: '4.5' },
  },
  {
    name: 'the segment id',
    method: 'GET',
    path: '/api/admin/segments',
    view: null,
    save: (b, saved) => (saved.segment = b.segments[0].id),
  },
  {
    name: 'a strategy with the segment on gamma-kill',
    method: 'POST',
    path: `${flag('gamma-kill')}/environments/production/strategies`,
    body: (saved: Saved) => ({ name: 'default', constraints: [], segments: [saved.segment] }),
    view: null,
  },
  search('segment=INCLUDE:beta-users'),
  search('segment=DO_NOT_INCLUDE:beta-users&sortBy=name'),
  search('createdBy=IS:-42&sortBy=name&limit=2'),

  // Dependencies.
  {
    name: 'beta-search depends on alpha-checkout',
    method: 'POST',
    path: `${flag('beta-search')}/dependencies`,
    body: { feature: 'alpha-checkout', enabled: true },
  },
  { name: 'the parents beta-search could have', method: 'GET', path: `${flag('beta-search')}/parents` },
  { name: 'alpha-checkout’s variants for a child', method: 'GET', path: `${flag('alpha-checkout')}/parent-variants` },
  { name: 'the project has dependencies', method: 'GET', path: '/api/admin/projects/default/dependencies' },
  search('sortBy=name'),

  // Clone: the new flag, as read back.
  { name: 'clone alpha-checkout', method: 'POST', path: `${flag('alpha-checkout')}/clone`, body: { name: 'alpha-clone' }, view: null },
  search('query=alpha&sortBy=name'),

  // Maintenance mode: a change is refused while it is on.
  { name: 'maintenance on', method: 'POST', path: '/api/admin/maintenance', body: { enabled: true } },
  { name: 'maintenance is on', method: 'GET', path: '/api/admin/maintenance' },
  // The reference's 503 is `{message}` alone; Pennon's has its error shape, named MaintenanceModeError.
  { name: 'a flag create refused in maintenance', method: 'POST', path: FEATURES, body: { name: 'during-maintenance' }, errorName: false },
  { name: 'a read allowed in maintenance', method: 'GET', path: '/api/admin/search/features?query=during', view: searchPage },
  { name: 'maintenance off', method: 'POST', path: '/api/admin/maintenance', body: { enabled: false } },
  // Twice: the reference's scheduler checks the setting every second and, if it does while the
  // first is written, keeps the old value for a minute; the second write (no change) clears it.
  { name: 'maintenance off again', method: 'POST', path: '/api/admin/maintenance', body: { enabled: false } },
  { name: 'a flag create allowed again', method: 'POST', path: FEATURES, body: { name: 'after-maintenance' }, view: null },

  // Project API tokens.
  {
    name: 'create a project client token',
    method: 'POST',
    path: '/api/admin/projects/default/api-tokens',
    body: { tokenName: 'project-client', type: 'client', environment: 'development' },
    // Pennon leaves out the deprecated `project` (the reference's first project), and the
    // reference leaves out `expiresAt` here when there is none.
    view: (t) => pick(t, ['tokenName', 'type', 'environment', 'projects']),
    save: (t, saved) => {
      saved.token = t.secret
    },
  },
  {
    name: 'the project’s tokens',
    method: 'GET',
    path: '/api/admin/projects/default/api-tokens',
    // The reference shows an admin token every token of the instance here; Pennon the project's only.
    view: (b) =>
      b.tokens
        .filter((t: any) => t.type !== 'admin')
        .map((t: any) => pick(t, ['tokenName', 'type', 'environment', 'projects', 'expiresAt'])),
  },
  { name: 'delete the project token', method: 'DELETE', path: (s) => `/api/admin/projects/default/api-tokens/${s.token}` },

  // Health report: the counts both compute. Left out: what Pennon does not keep (members, mode,
  // favorites, stats), each flag's environments, and `health`/`technicalDebt`, which the reference
  // reads from what its periodic job stored (100 until it runs); flags by name (the reference
  // lists them as its store returns them).
  {
    name: 'the project’s health report',
    method: 'GET',
    path: '/api/admin/projects/default/health-report',
    view: (r) => ({
      ...pick(r, ['name', 'activeCount', 'staleCount', 'potentiallyStaleCount', 'environments']),
      features: r.features.map((f: any) => pick(f, ['name', 'type', 'stale'])).sort(byName),
    }),
  },

  // Compatibility fixes.
  { name: 'PUT a flag with another name', method: 'PUT', path: flag('gamma-kill'), body: { name: 'other-name', type: 'kill-switch' } },
  {
    name: 'PUT a flag with its own name',
    method: 'PUT',
    path: flag('gamma-kill'),
    body: { name: 'gamma-kill', type: 'kill-switch', description: 'Stops it all' },
    view: (f) => pick(f, ['name', 'type', 'description', 'stale', 'impressionData', 'project']),
  },
  {
    name: 'create a user',
    method: 'POST',
    path: '/api/admin/user-admin',
    body: { email: 'ann@example.com', name: 'Ann', rootRole: 3 },
    view: null,
  },
  {
    name: 'a reset link by email',
    method: 'POST',
    path: '/api/admin/user-admin/reset-password',
    body: { id: 'ann@example.com' },
    // The link's origin and secret are each server's own.
    view: (b) => Object.keys(b),
  },
  {
    name: 'create another user',
    method: 'POST',
    path: '/api/admin/user-admin',
    body: { email: 'bob@example.com', rootRole: 3 },
    view: null,
  },
  {
    name: 'a reset link by email in capitals',
    method: 'POST',
    path: '/api/admin/user-admin/reset-password',
    body: { id: 'BOB@example.com' },
    view: (b) => Object.keys(b),
  },
  {
    name: 'a second reset link for one user within a minute',
    method: 'POST',
    path: '/api/admin/user-admin/reset-password',
    body: { id: 'ann@example.com' },
    view: (b) => Object.keys(b),
    // The reference gives one link per user a minute; Pennon does not limit an admin's resets.
    differs: { unleash: { status: 429, name: 'RateLimitError' }, pennon: { status: 200, body: ['resetPasswordUrl'] } },
  },
  {
    name: 'a reset link for an unknown email',
    method: 'POST',
    path: '/api/admin/user-admin/reset-password',
    body: { id: 'nobody@example.com' },
  },

  // Pennon takes a single `status` as a list of one; the reference's schema refuses a lone one (400).
  {
    ...search('status=development:enabled'),
    view: namesFound,
    differs: {
      unleash: { status: 400, name: 'ValidationError' },
      pennon: { status: 200, body: { total: 1, features: ['alpha-checkout'] } },
    },
  },

  // Reads of what the scenario made.
  { name: 'segments', method: 'GET', path: '/api/admin/segments' },
  { name: 'tag types', method: 'GET', path: '/api/admin/tag-types' },
  { name: 'tags', method: 'GET', path: '/api/admin/tags' },
  { name: 'a flag’s tags', method: 'GET', path: '/api/admin/features/alpha-checkout/tags' },
  { name: 'context fields', method: 'GET', path: '/api/admin/context' },
  { name: 'environments', method: 'GET', path: '/api/admin/environments' },
  { name: 'flag types', method: 'GET', path: '/api/admin/feature-types' },
  {
    name: 'a flag’s strategies in an environment',
    method: 'GET',
    path: `${flag('alpha-checkout')}/environments/development/strategies`,
    // The reference's `milestoneId` belongs to release plans, which Pennon has not.
    view: (b) => b.map((st: any) => withoutVolatile({ ...st, milestoneId: undefined })),
  },
  {
    name: 'what archiving a parent would break',
    method: 'POST',
    path: '/api/admin/projects/default/archive/validate',
    body: { features: ['alpha-checkout'] },
  },

  // Unknown things.
  { name: 'an unknown flag', method: 'GET', path: flag('ghost') },
  { name: 'a link on an unknown flag', method: 'POST', path: `${flag('ghost')}/link`, body: { url: 'https://example.com' } },
  {
    name: 'a dependency on an unknown flag',
    method: 'POST',
    path: `${flag('beta-search')}/dependencies`,
    body: { feature: 'ghost' },
    // The reference refuses it as an invalid operation (403); Pennon answers 404 for the unknown flag.
    differs: { unleash: { status: 403, name: 'InvalidOperationError' }, pennon: { status: 404, name: 'NotFoundError' } },
  },

  // Archive: the archived flags, searched. The reference writes a flag's stages from its events in
  // the background, each kind on its own: archived before its initial stage is written, the flag
  // would have them in the wrong order there. So its initial stage is waited for first.
  {
    name: 'after-maintenance’s lifecycle before its archive',
    method: 'GET',
    path: `${flag('after-maintenance')}/lifecycle`,
    until: (body) => Array.isArray(body) && body.length > 0,
  },
  { name: 'archive after-maintenance', method: 'DELETE', path: flag('after-maintenance') },
  search('archived=IS:true'),
  search('sortBy=name&limit=100'),

  // Events, searched.
  eventSearch('environment=IS:development'),
  eventSearch('query=team-a'),
  eventSearch('feature=IS_ANY_OF:beta-search,gamma-kill&limit=4'),
  eventSearch('feature=IS:alpha-checkout'),
  eventSearch('project=IS:default&type=IS:feature-created&limit=3'),
  eventSearch('type=IS_ANY_OF:feature-link-added,feature-link-removed'),
  eventSearch(`from=IS:${today}&to=IS:${today}&type=IS:feature-tagged`),
  eventSearch('createdBy=IS:-42&type=IS:feature-created&offset=1&limit=2'),
  // The reference's own migrations wrote events by "migration", which Pennon never had.
  {
    name: 'event creators',
    method: 'GET',
    path: '/api/admin/event-creators',
    view: (b) => b.map((c: any) => c.name).filter((name: string) => name !== 'migration'),
  },
  { name: 'flag creators', method: 'GET', path: '/api/admin/projects/default/flag-creators' },
]
