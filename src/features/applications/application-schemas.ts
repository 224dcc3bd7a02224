/**
 * The application reads' answers: the reference's applicationSchema (with what its route also
 * sends: createdAt, instances, seenToggles), applicationOverviewSchema,
 * applicationEnvironmentInstancesSchema and projectApplicationsSchema.
 */
import { Type, type Static } from '@sinclair/typebox'

export const AppNameParams = Type.Object({ appName: Type.String({ maxLength: 1000 }) })
export const AppEnvironmentParams = Type.Object({
  appName: Type.String({ maxLength: 1000 }),
  environment: Type.String({ maxLength: 1000 }),
})
export const ProjectParams = Type.Object({ projectId: Type.String({ maxLength: 1000 }) })

/** POST /metrics/applications/:appName: a name as SDKs may report it. */
export const CreateAppParams = Type.Object({ appName: Type.String({ minLength: 1, maxLength: 255 }) })

/** The reference's createApplicationSchema, bounded. */
export const CreateApplicationBody = Type.Object(
  {
    strategies: Type.Optional(
      Type.Array(Type.String({ maxLength: 100 }), {
        maxItems: 50,
        description: 'The strategies it has loaded: at most 50 names of at most 100 characters',
      }),
    ),
    description: Type.Optional(Type.String({ maxLength: 1000, description: 'What the application is (the reference stores it too)' })),
    url: Type.Optional(Type.String({ maxLength: 1000, description: 'A link about the application, such as its repository' })),
    color: Type.Optional(Type.String({ maxLength: 100, description: "A CSS colour for the application's entry in lists" })),
    icon: Type.Optional(Type.String({ maxLength: 1000, description: "An icon URL for the application's entry in lists" })),
  },
  { description: 'What an admin tells about an application; absent fields keep their value' },
)
export type CreateApplicationBody = Static<typeof CreateApplicationBody>

/** The reference's outdatedSdksSchema. */
export const OutdatedSdksResponse = Type.Object(
  {
    sdks: Type.Array(
      Type.Object(
        {
          sdkVersion: Type.String({ description: '`<sdk>:<version>`, older than the oldest the reference accepts for that SDK' }),
          applications: Type.Array(Type.String(), { description: 'The applications whose instances report it, sorted' }),
        },
        { additionalProperties: false },
      ),
      { description: 'By SDK version' },
    ),
  },
  { additionalProperties: false },
)
export type OutdatedSdksResponse = Static<typeof OutdatedSdksResponse>

const DateTime = Type.String({ format: 'date-time' })
const NullableText = Type.Union([Type.String(), Type.Null()])

export const ApplicationResponse = Type.Object({
  appName: Type.String(),
  sdkVersion: Type.Optional(Type.String({ description: 'As last registered or reported' })),
  strategies: Type.Array(Type.String(), { description: 'As last registered; empty until the application registers' }),
  description: Type.Optional(Type.String({ description: 'As an admin set it (absent until then)' })),
  url: Type.Optional(Type.String({ description: 'As an admin set it (absent until then)' })),
  color: Type.Optional(Type.String()),
  icon: Type.Optional(Type.String()),
  usage: Type.Array(
    Type.Object({ project: Type.String({ description: '`*`: a token for every project' }), environments: Type.Array(Type.String()) }),
  ),
  createdAt: DateTime,
  instances: Type.Array(
    Type.Object({
      instanceId: Type.String(),
      environment: Type.String(),
      sdkVersion: NullableText,
      sdkType: Type.Union([Type.Literal('frontend'), Type.Literal('backend'), Type.Null()], {
        description: 'By the route it reported on; null if recorded before Pennon kept it',
      }),
      clientIp: NullableText,
      lastSeen: DateTime,
      createdAt: DateTime,
    }),
    { description: 'Its recorded instances (at most METRICS_INSTANCES_PER_APPLICATION), the latest seen first' },
  ),
  seenToggles: Type.Array(
    Type.Union([
      Type.Object({ name: Type.String(), project: Type.String() }),
      Type.Object({ name: Type.String(), notFound: Type.Literal(true) }),
    ]),
    { description: 'The flags its stored counts name (48 hours), by name; `notFound` for one deleted since' },
  ),
})
export type ApplicationResponse = Static<typeof ApplicationResponse>

export const OverviewResponse = Type.Object({
  projects: Type.Array(Type.String(), { description: 'Projects of the flags it reported, sorted' }),
  featureCount: Type.Integer({ description: 'Flags it reported (48 hours)' }),
  environments: Type.Array(
    Type.Object({
      name: Type.String(),
      instanceCount: Type.Integer({ description: 'Instances seen in the last 24 hours' }),
      sdks: Type.Array(Type.String()),
      frontendSdks: Type.Array(Type.String()),
      backendSdks: Type.Array(Type.String()),
      lastSeen: Type.Union([DateTime, Type.Null()], { description: 'The latest of its instances here in the last 24 hours; null if none' }),
      issues: Type.Object({
        missingFeatures: Type.Array(Type.String(), { description: 'Names it counted here that are no flags (deleted, or never created)' }),
        outdatedSdks: Type.Array(Type.String()),
      }),
    }),
    { description: 'Environments it reported counts in or has instances seen in (24 hours), by name' },
  ),
  issues: Type.Object({
    missingStrategies: Type.Array(Type.String(), {
      description: 'Strategies it registered that Pennon does not define (deprecated built-ins aside)',
    }),
  }),
})
export type OverviewResponse = Static<typeof OverviewResponse>

export const EnvironmentInstancesResponse = Type.Object({
  instances: Type.Array(Type.Object({ instanceId: Type.String(), sdkVersion: NullableText, clientIp: NullableText, lastSeen: DateTime }), {
    description: 'Seen in the last 24 hours, the latest first',
  }),
})

export const ProjectApplicationsQuery = Type.Object({
  query: Type.Optional(
    Type.String({
      maxLength: 255,
      description: 'Comma-separated terms: applications whose name, environments, instance ids or SDK versions contain one (any case)',
    }),
  ),
  offset: Type.Optional(Type.String({ maxLength: 20, description: 'Applications to skip (default 0)' })),
  limit: Type.Optional(Type.String({ maxLength: 20, description: 'Applications in the page, 1–100 (default 50)' })),
  sortBy: Type.Optional(Type.String({ maxLength: 100, description: 'Accepted for compatibility: applications are sorted by name' })),
  sortOrder: Type.Optional(Type.String({ maxLength: 10, description: '"asc" (default) or "desc"' })),
})
export type ProjectApplicationsQuery = Static<typeof ProjectApplicationsQuery>

export const ProjectApplicationsResponse = Type.Object({
  total: Type.Integer({ description: 'Applications matching, over every page' }),
  applications: Type.Array(
    Type.Object({
      name: Type.String(),
      environments: Type.Array(Type.String(), { description: "Where its counts name the project's flags" }),
      instances: Type.Array(Type.String(), { description: 'Its instance ids in those environments' }),
      sdks: Type.Array(Type.Object({ name: Type.String(), versions: Type.Array(Type.String()) })),
    }),
  ),
})
export type ProjectApplicationsResponse = Static<typeof ProjectApplicationsResponse>
