/**
 * The scenario's later part (after admin-api-steps.ts, whose flags, segment and users it uses):
 * lifecycle, favorites, project reads, default strategies, applications, UI config, segment
 * strategies, instance statistics, invite links and the user-admin reads.
 */
import { eventSearch, flag, pick, type Step, withoutVolatile } from './admin-api-steps.ts'

const PROJECT = '/api/admin/projects/default'
const inTwentyDays = new Date(Date.now() + 20 * 24 * 3600_000).toISOString()

const withoutNulls = (o: object) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null))

/**
 * An application as both show it (its `description` too: not in the reference's
 * createApplicationSchema, but kept and shown by both). Left out: the reference's `createdBy`,
 * `project`, `environment` and `links`, Pennon's `usage`.
 */
const application = (a: any) => pick(a, ['appName', 'strategies', 'description', 'url', 'color', 'icon', 'instances', 'seenToggles'])
const applications = (b: any) => ({ total: b.total, applications: b.applications.map(application) })

/** An invite link without its `url`: its origin, route and secret are each server's own. */
const inviteLink = (l: any) => withoutVolatile({ ...l, url: undefined })

/**
 * The statistics: their set of keys, and the counts this scenario decides. Left out:
 * what each instance has of its own (`timestamp`, `instanceId`, versions, `sum`), `users` (the
 * reference counts its own `admin` user), `roles` (the reference counts its project roles too),
 * `strategies` (Pennon also keeps the four deprecated built-in definitions a fresh
 * reference has not), `releaseTemplates` and `edgeInstanceUsage` (the reference's enterprise
 * features, which Pennon has not).
 */
const statistics = (s: any) => ({
  keys: Object.keys(s).sort(),
  ...pick(s, [
    'serviceAccounts',
    'apiTokens',
    'activeUsers',
    'licensedUsers',
    'featureToggles',
    'archivedFeatureToggles',
    'projects',
    'contextFields',
    'customRootRoles',
    'customRootRolesInUse',
    'groups',
    'environments',
    'segments',
    'SAMLenabled',
    'OIDCenabled',
    'passwordAuthEnabled',
    'SCIMenabled',
    'clientApps',
    'featureExports',
    'featureImports',
    'productionChanges',
    'previousDayMetricsBucketsCount',
    'maxEnvironmentStrategies',
    'maxConstraintValues',
    'maxConstraints',
    'releasePlans',
    'readOnlyUsers',
  ]),
})

const FAVORITE_BY_TOKEN = { unleash: { status: 500, name: 'UnknownError' }, pennon: { status: 403, name: 'NoAccessError' } }

export const LATER_STEPS: Step[] = [
  // Lifecycle. The reference writes a new flag's stage from its events in the background: on a busy
  // host that has come late, so it is waited for here (and with it every flag made before).
  {
    name: 'alpha-checkout’s lifecycle',
    method: 'GET',
    path: `${flag('alpha-checkout')}/lifecycle`,
    until: (body) => Array.isArray(body) && body.length > 0,
  },
  {
    name: 'complete gamma-kill',
    method: 'POST',
    path: `${flag('gamma-kill')}/lifecycle/complete`,
    body: { status: 'kept', statusValue: 'on' },
  },
  {
    name: 'gamma-kill’s lifecycle, completed',
    method: 'GET',
    path: `${flag('gamma-kill')}/lifecycle`,
    until: (body) => Array.isArray(body) && body.some((stage) => stage.stage === 'initial'),
  },
  // The reference moves a flag's lifecycle (here: after-maintenance, archived; gamma-kill, completed)
  // as it announces its events, once a second: until both have come.
  {
    name: 'flags by lifecycle stage',
    method: 'GET',
    path: '/api/admin/lifecycle/count',
    until: (body) => body?.archived === 1 && body?.completed === 1,
  },
  { name: 'uncomplete gamma-kill', method: 'POST', path: `${flag('gamma-kill')}/lifecycle/uncomplete` },
  { name: 'gamma-kill’s lifecycle, uncompleted', method: 'GET', path: `${flag('gamma-kill')}/lifecycle` },
  { name: 'flags by lifecycle stage again', method: 'GET', path: '/api/admin/lifecycle/count' },
  { name: 'an archived flag’s lifecycle', method: 'GET', path: `${flag('after-maintenance')}/lifecycle` },
  { name: 'a clone’s lifecycle', method: 'GET', path: `${flag('alpha-clone')}/lifecycle` },
  {
    name: 'complete with an unknown status',
    method: 'POST',
    path: `${flag('beta-search')}/lifecycle/complete`,
    body: { status: 'maybe' },
  },
  {
    name: 'an unknown flag’s lifecycle',
    method: 'GET',
    path: `${flag('ghost')}/lifecycle`,
    // The reference answers the stages of any name, none for a flag it does not have.
    differs: { unleash: { status: 200, body: [] }, pennon: { status: 404, name: 'NotFoundError' } },
  },

  // Favorites, by an admin token, which has none: the reference fails (500), Pennon refuses (403).
  { name: 'favorite a flag', method: 'POST', path: `${flag('alpha-checkout')}/favorites`, body: {}, differs: FAVORITE_BY_TOKEN },
  { name: 'unfavorite a flag', method: 'DELETE', path: `${flag('alpha-checkout')}/favorites`, body: {}, differs: FAVORITE_BY_TOKEN },
  { name: 'favorite a project', method: 'POST', path: `${PROJECT}/favorites`, body: {}, differs: FAVORITE_BY_TOKEN },
  { name: 'unfavorite a project', method: 'DELETE', path: `${PROJECT}/favorites`, body: {}, differs: FAVORITE_BY_TOKEN },

  // Default strategy, then a flag switched on without strategies there.
  {
    name: 'production’s default strategy',
    method: 'POST',
    path: `${PROJECT}/environments/production/default-strategy`,
    body: { name: 'flexibleRollout', constraints: [], parameters: { rollout: '40', stickiness: 'default', groupId: '' } },
  },
  {
    name: 'a default strategy of another kind',
    method: 'POST',
    path: `${PROJECT}/environments/production/default-strategy`,
    body: { name: 'default', constraints: [], parameters: {} },
  },
  {
    name: 'a default strategy in an unknown environment',
    method: 'POST',
    path: `${PROJECT}/environments/nowhere/default-strategy`,
    body: { name: 'flexibleRollout', constraints: [], parameters: { rollout: '40', stickiness: 'default', groupId: '' } },
    // The reference fails (500); Pennon answers 404.
    differs: { unleash: { status: 500, name: 'UnknownError' }, pennon: { status: 404, name: 'NotFoundError' } },
  },
  { name: 'alpha-checkout on in production', method: 'POST', path: `${flag('alpha-checkout')}/environments/production/on`, view: null },
  {
    name: 'the strategy added by the default',
    method: 'GET',
    path: `${flag('alpha-checkout')}/environments/production/strategies`,
    // With its `groupId` (the reference's `milestoneId` left out, as for any strategy read).
    view: (b) =>
      b.map((st: any) => ({ ...(withoutVolatile({ ...st, milestoneId: undefined }) as object), groupId: st.parameters.groupId })),
  },
  eventSearch('environment=IS:production'),

  // Project reads.
  // Left out: `stats`, `health` and `technicalDebt`, which the reference reads from what its
  // periodic job stored (zeros and 100 until it runs); Pennon computes them when asked.
  {
    name: 'the project’s overview',
    method: 'GET',
    path: `${PROJECT}/overview`,
    view: (o) => withoutVolatile({ ...o, stats: undefined, health: undefined, technicalDebt: undefined }),
  },
  { name: 'the project’s status', method: 'GET', path: `${PROJECT}/status` },
  // Left out, as from the overview: `stats` and the two ratings (the reference's periodic job).
  {
    name: 'the project’s insights',
    method: 'GET',
    path: `${PROJECT}/insights`,
    view: (i) => ({
      ...i,
      stats: undefined,
      health: { ...i.health, rating: undefined },
      technicalDebt: { ...i.technicalDebt, rating: undefined },
    }),
  },
  { name: 'the project’s dora', method: 'GET', path: `${PROJECT}/dora` },
  {
    name: 'the project’s overview of archived flags',
    method: 'GET',
    path: `${PROJECT}/overview?archived=true`,
    view: (o) => o.featureTypeCounts,
  },
  { name: 'the project’s outdated SDKs', method: 'GET', path: `${PROJECT}/sdks/outdated` },

  // Applications.
  {
    name: 'create an application',
    method: 'POST',
    path: '/api/admin/metrics/applications/shop-web',
    body: { description: 'The shop', url: 'https://shop.example.com', color: 'blue', icon: 'cart' },
  },
  { name: 'applications', method: 'GET', path: '/api/admin/metrics/applications', view: applications },
  { name: 'the application', method: 'GET', path: '/api/admin/metrics/applications/shop-web', view: application },
  {
    name: 'the application’s overview',
    method: 'GET',
    path: '/api/admin/metrics/applications/shop-web/overview',
    // Left out: `featureCount`. Of an application no SDK reported, the reference counts 1 (the
    // empty row of its metrics join), Pennon 0.
    view: (o) => ({ ...o, featureCount: undefined }),
  },
  { name: 'delete the application', method: 'DELETE', path: '/api/admin/metrics/applications/shop-web' },
  { name: 'delete an unknown application', method: 'DELETE', path: '/api/admin/metrics/applications/nowhere' },
  { name: 'applications after the delete', method: 'GET', path: '/api/admin/metrics/applications', view: applications },
  { name: 'outdated SDKs', method: 'GET', path: '/api/admin/metrics/sdks/outdated' },

  // UI config.
  {
    name: 'ui config',
    method: 'GET',
    path: '/api/admin/ui-config',
    view: (c) =>
      pick(c, [
        'baseUriPath',
        'authenticationType',
        'disablePasswordAuth',
        'emailEnabled',
        'maintenanceMode',
        'prometheusAPIAvailable',
        'frontendApiOrigins',
      ]),
  },
  {
    name: 'set the CORS origins',
    method: 'POST',
    path: '/api/admin/ui-config/cors',
    body: { frontendApiOrigins: ['https://shop.example.com'] },
  },
  { name: 'the origins in ui config', method: 'GET', path: '/api/admin/ui-config', view: (c) => c.frontendApiOrigins },
  { name: 'a bad CORS origin', method: 'POST', path: '/api/admin/ui-config/cors', body: { frontendApiOrigins: ['not an origin'] } },

  // Instance statistics, before the segments of a strategy change (Pennon records that change as
  // a production event, where the reference records none).
  { name: 'instance statistics', method: 'GET', path: '/api/admin/instance-admin/statistics', view: statistics },

  // Segments of a strategy.
  {
    name: 'gamma-kill’s production strategy',
    method: 'GET',
    path: `${flag('gamma-kill')}/environments/production/strategies`,
    view: null,
    save: (b, saved) => (saved.strategy = b[0].id),
  },
  { name: 'the strategy’s segments', method: 'GET', path: (s) => `/api/admin/segments/strategies/${s.strategy}` },
  {
    name: 'the strategy’s segments set to none',
    method: 'POST',
    path: '/api/admin/segments/strategies',
    body: (s: any) => ({ projectId: 'default', environmentId: 'production', strategyId: s.strategy, segmentIds: [] }),
    view: (b) => ({ ...b, strategyId: undefined }),
  },
  { name: 'the strategy’s segments, none', method: 'GET', path: (s) => `/api/admin/segments/strategies/${s.strategy}` },
  { name: 'an unknown strategy’s segments', method: 'GET', path: '/api/admin/segments/strategies/nothing' },

  // Invite links.
  {
    name: 'create an invite link',
    method: 'POST',
    path: '/api/admin/invite-link/tokens',
    body: { name: 'team', expiresAt: inTwentyDays },
    view: inviteLink,
    save: (b, saved) => (saved.invite = b.secret),
  },
  { name: 'invite links', method: 'GET', path: '/api/admin/invite-link/tokens', view: (b) => b.tokens.map(inviteLink) },
  { name: 'the invite link', method: 'GET', path: (s) => `/api/admin/invite-link/tokens/${s.invite}`, view: inviteLink },
  // The reference answers an update with `role: {}`; Pennon with the link's role, as its reads.
  {
    name: 'disable the invite link',
    method: 'PUT',
    path: (s) => `/api/admin/invite-link/tokens/${s.invite}`,
    body: { enabled: false },
    view: (b) => ({ ...(inviteLink(b) as object), role: undefined }),
  },
  // The reference's 400 has no body.
  { name: 'validate a disabled invite', method: 'GET', path: (s) => `/invite/${s.invite}/validate`, errorName: false },
  {
    name: 'enable the invite link',
    method: 'PUT',
    path: (s) => `/api/admin/invite-link/tokens/${s.invite}`,
    body: { enabled: true },
    view: (b) => ({ ...(inviteLink(b) as object), role: undefined }),
  },
  { name: 'validate the invite', method: 'GET', path: (s) => `/invite/${s.invite}/validate` },
  {
    name: 'sign up through the invite',
    method: 'POST',
    path: (s) => `/invite/${s.invite}/signup`,
    body: { email: 'cat@example.com', name: 'Cat', password: 'Correct-Horse-9-Battery' },
    // The reference's user also has its avatar URL and enterprise fields (SCIM, seats, company role…).
    view: (u) => pick(u, ['name', 'email', 'rootRole', 'loginAttempts', 'accountType']),
  },
  {
    name: 'sign up again with the same email',
    method: 'POST',
    path: (s) => `/invite/${s.invite}/signup`,
    body: { email: 'cat@example.com', name: 'Cat', password: 'Correct-Horse-9-Battery' },
  },
  { name: 'validate an unknown invite', method: 'GET', path: '/invite/0123456789abcdef0123456789abcdef/validate', errorName: false },
  { name: 'the invite link’s users', method: 'GET', path: (s) => `/api/admin/invite-link/tokens/${s.invite}`, view: inviteLink },

  // User admin reads.
  {
    name: 'users and groups',
    method: 'GET',
    path: '/api/admin/user-admin/access',
    // Left out: the reference's own user `admin`, made at its start; a field Pennon answers as
    // null, the reference leaves out.
    view: (b) => ({
      ...b,
      users: b.users.filter((u: any) => u.username !== 'admin').map((u: any) => withoutVolatile(withoutNulls(u))),
    }),
  },
  { name: 'inactive users', method: 'GET', path: '/api/admin/user-admin/inactive' },
  { name: 'delete SCIM users', method: 'DELETE', path: '/api/admin/user-admin/scim-users' },
  { name: 'a password email', method: 'POST', path: '/auth/reset/password-email', body: { email: 'cat@example.com' }, view: null },
  {
    name: 'a second password email within a minute',
    method: 'POST',
    path: '/auth/reset/password-email',
    body: { email: 'nobody@example.com' },
    view: null,
    errorName: false,
    // The reference allows one a minute per client address; Pennon one per email address.
    differs: { unleash: { status: 429 }, pennon: { status: 200 } },
  },
  {
    name: 'users',
    method: 'GET',
    path: '/api/admin/user-admin',
    view: null,
    save: (b, saved) => (saved.bob = b.users.find((u: any) => u.email === 'bob@example.com').id),
  },
  {
    name: 'give a user a taken email',
    method: 'PUT',
    path: (s) => `/api/admin/user-admin/${s.bob}`,
    body: { email: 'ann@example.com' },
    // The reference fails (500); Pennon answers 400, as to a create with a taken email.
    differs: { unleash: { status: 500, name: 'UnknownError' }, pennon: { status: 400, name: 'ValidationError' } },
  },
  {
    name: 'create a user with a taken email',
    method: 'POST',
    path: '/api/admin/user-admin',
    body: { email: 'ann@example.com', rootRole: 3 },
  },
  {
    name: 'personal dashboard of a token',
    method: 'GET',
    path: '/api/admin/personal-dashboard',
    // A token is no person: the reference fails (500), Pennon answers 404.
    differs: { unleash: { status: 500, name: 'UnknownError' }, pennon: { status: 404, name: 'NotFoundError' } },
  },
]
