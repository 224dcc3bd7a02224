import { Type } from '@sinclair/typebox'

const Count = (description: string) => Type.Integer({ minimum: 0, description })

const StageSummary = Type.Object(
  {
    averageDays: Type.Union([Type.Number(), Type.Null()], {
      description: 'Average days a flag of the project stayed in the stage, rounded; null while none has left it',
    }),
    currentFlags: Type.Integer({ description: 'Active flags of the project whose current stage this is' }),
  },
  { additionalProperties: false },
)

/** The reference's projectStatusSchema. */
export const ProjectStatusResponse = Type.Object(
  {
    activityCountByDate: Type.Array(
      Type.Object(
        { date: Type.String({ description: 'A UTC day, yyyy-MM-dd' }), count: Count('Events of the project that day') },
        { additionalProperties: false },
      ),
      { description: "The project's events per day over the last year, oldest first; days without any left out" },
    ),
    resources: Type.Object(
      {
        apiTokens: Count('API tokens that name the project'),
        members: Count('Always 0: Pennon has no project members'),
        segments: Count("The project's own segments"),
      },
      { additionalProperties: false },
    ),
    health: Type.Object(
      { current: Count('100 minus the percentages of stale and of potentially stale flags among the active ones, rounded') },
      { additionalProperties: false },
    ),
    technicalDebt: Type.Object(
      { current: Type.Integer({ minimum: 0, maximum: 100, description: '100 - health' }) },
      { additionalProperties: false },
    ),
    lifecycleSummary: Type.Object(
      {
        initial: StageSummary,
        preLive: StageSummary,
        live: StageSummary,
        completed: StageSummary,
        archived: Type.Object(
          {
            currentFlags: Type.Integer({ description: 'Archived flags of the project' }),
            last30Days: Type.Integer({ description: 'Flags of the project archived in the last 30 days' }),
          },
          { additionalProperties: false },
        ),
      },
      { additionalProperties: false },
    ),
    staleFlags: Type.Object({ total: Count('Active flags that are stale or potentially stale') }, { additionalProperties: false }),
  },
  { additionalProperties: false, description: "The reference's projectStatusSchema" },
)
