import { Type, type Static } from '@sinclair/typebox'
import { STAGES } from './lifecycle-store.ts'

const PathName = Type.String({ maxLength: 1000 })

export const LifecycleParams = Type.Object({ projectId: PathName, featureName: PathName })
export type LifecycleParams = Static<typeof LifecycleParams>

export const StageName = Type.Union(
  STAGES.map((stage) => Type.Literal(stage)),
  { description: 'initial, pre-live, live, completed or archived' },
)

/** One stage a flag entered (the reference's featureLifecycleSchema item). */
export const EnteredStage = Type.Object(
  {
    stage: StageName,
    status: Type.Optional(Type.String({ description: 'On completed: kept or discarded' })),
    enteredStageAt: Type.String({ format: 'date-time', description: 'When the flag entered the stage' }),
  },
  { additionalProperties: false },
)

export const LifecycleResponse = Type.Array(EnteredStage, {
  description: "The stages the flag entered, in the order it entered them (the reference's featureLifecycleSchema)",
})

/** The flag read's and the search's `lifecycle`: the current stage (the reference's, `status` nullable there). */
export const CurrentStage = Type.Object(
  {
    stage: StageName,
    status: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'On completed: kept or discarded' })),
    enteredStageAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false, description: 'The current lifecycle stage of the flag' },
)

export const CompleteBody = Type.Object(
  {
    status: Type.Union([Type.Literal('kept'), Type.Literal('discarded')], {
      description: 'What became of the flag: kept in the code, or discarded from it',
    }),
    statusValue: Type.Optional(Type.String({ maxLength: 1000, description: 'A detail of the status, such as the variant kept' })),
  },
  { additionalProperties: false, description: "The reference's featureLifecycleCompletedSchema" },
)
export type CompleteBody = Static<typeof CompleteBody>

const count = (stage: string) => Type.Number({ description: `Flags whose current stage is ${stage}` })

export const StageCountResponse = Type.Object(
  {
    initial: count('initial'),
    preLive: count('pre-live'),
    live: count('live'),
    completed: count('completed'),
    archived: count('archived'),
  },
  { additionalProperties: false, description: "The reference's featureLifecycleCountSchema" },
)
