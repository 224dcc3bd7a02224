import { Type } from '@sinclair/typebox'
import { OnboardingStatus } from '../project-insights/project-insights-schemas.ts'

const Count = Type.Integer({ minimum: 0 })

const UserOwner = Type.Object({
  ownerType: Type.Literal('user'),
  name: Type.String(),
  imageUrl: Type.Union([Type.String(), Type.Null()]),
  email: Type.Union([Type.String(), Type.Null()]),
})

export const PersonalDashboardResponse = Type.Object(
  {
    projects: Type.Array(
      Type.Object(
        {
          id: Type.String(),
          name: Type.String(),
          health: Type.Integer({ minimum: 0, description: 'Deprecated: 100 - technicalDebt' }),
          technicalDebt: Type.Integer({ minimum: 0, maximum: 100 }),
          memberCount: Count,
          featureCount: Count,
        },
        { additionalProperties: false },
      ),
      { description: '`default` and the projects the caller created, by name' },
    ),
    flags: Type.Array(Type.Object({ name: Type.String(), project: Type.String(), type: Type.String() }, { additionalProperties: false }), {
      description: 'The active flags the caller created, newest first (at most 100)',
    }),
    projectOwners: Type.Array(UserOwner, { description: "Every project's owners that are people, each once" }),
    admins: Type.Array(
      Type.Object({
        id: Type.Integer(),
        name: Type.Optional(Type.String()),
        username: Type.Optional(Type.String()),
        email: Type.Optional(Type.String()),
        imageUrl: Type.String(),
      }),
    ),
  },
  { additionalProperties: false },
)

export const PersonalProjectParams = Type.Object({ projectId: Type.String({ maxLength: 1000 }) })

export const PersonalProjectDetailsResponse = Type.Object(
  {
    latestEvents: Type.Array(
      Type.Object(
        {
          id: Type.Integer({ minimum: 1 }),
          summary: Type.Union([Type.String(), Type.Null()], { description: 'One line of markdown' }),
          createdBy: Type.String(),
          createdByImageUrl: Type.String(),
          createdAt: Type.String({ format: 'date-time' }),
        },
        { additionalProperties: false },
      ),
      { description: "The project's 10 latest events, newest first" },
    ),
    onboardingStatus: OnboardingStatus,
    owners: Type.Array(Type.Union([UserOwner, Type.Object({ ownerType: Type.Literal('system') })]), {
      minItems: 1,
      description: 'The person who created the project, or `system`',
    }),
    roles: Type.Array(Type.Object({ name: Type.String(), id: Type.Integer(), type: Type.String() }, { additionalProperties: false }), {
      description: "The caller's project roles: Owner of a project they created",
    }),
    insights: Type.Object(
      {
        avgHealthCurrentWindow: Type.Null({ description: 'Always null: Pennon keeps no history of health' }),
        avgHealthPastWindow: Type.Null(),
        totalFlags: Count,
        activeFlags: Count,
        staleFlags: Count,
        potentiallyStaleFlags: Count,
        health: Type.Integer({ minimum: 0 }),
        technicalDebt: Type.Integer({ minimum: 0, maximum: 100 }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
)
