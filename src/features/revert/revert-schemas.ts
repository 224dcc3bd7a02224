/** POST /api/admin/events/:id/revert: the request's params and query, and the diff it answers. */
import { Type, type Static } from '@sinclair/typebox'
import { IntegerIdParam, QueryFlag } from '../../http/common-schemas.ts'
import { StrategyResponse } from '../flag-environments/strategy-schemas.ts'
import { VariantResponse } from '../flag-environments/variant-schemas.ts'

export const RevertParams = Type.Object({ id: IntegerIdParam })
export type RevertParams = Static<typeof RevertParams>

export const RevertQuery = Type.Object({
  dryRun: Type.Optional(QueryFlag('`true`: change nothing, answer what the revert would change')),
  force: Type.Optional(QueryFlag('`true`: revert even though later events changed the same things')),
})
export type RevertQuery = Static<typeof RevertQuery>

/** Any JSON value: a field's value before and after (a strategy's parameters, constraints, …). */
const Value = Type.Unknown()
const Environment = Type.String({ description: 'The environment of the change' })

export const RevertChange = Type.Union([
  Type.Object(
    {
      kind: Type.Literal('metadata'),
      field: Type.Union([Type.Literal('description'), Type.Literal('type'), Type.Literal('stale'), Type.Literal('impressionData')]),
      from: Type.Union([Type.String(), Type.Boolean(), Type.Null()]),
      to: Type.Union([Type.String(), Type.Boolean(), Type.Null()]),
    },
    { title: 'MetadataChange' },
  ),
  Type.Object(
    { kind: Type.Literal('enabled'), environment: Environment, from: Type.Boolean(), to: Type.Boolean() },
    { title: 'EnabledChange' },
  ),
  Type.Object({ kind: Type.Literal('strategy-added'), environment: Environment, strategy: StrategyResponse }, { title: 'StrategyAdded' }),
  Type.Object(
    {
      kind: Type.Literal('strategy-updated'),
      environment: Environment,
      strategyId: Type.String(),
      fields: Type.Array(Type.Object({ field: Type.String(), from: Value, to: Value }), {
        description: 'Each field that changes: name, title, disabled, parameters, constraints, variants, segments, sortOrder',
      }),
    },
    { title: 'StrategyUpdated' },
  ),
  Type.Object(
    { kind: Type.Literal('strategy-removed'), environment: Environment, strategy: StrategyResponse },
    { title: 'StrategyRemoved' },
  ),
  Type.Object(
    { kind: Type.Literal('variants'), environment: Environment, from: Type.Array(VariantResponse), to: Type.Array(VariantResponse) },
    { title: 'VariantsChange' },
  ),
  Type.Object(
    { kind: Type.Literal('dependency-added'), parent: Type.String(), enabled: Type.Boolean(), variants: Type.Array(Type.String()) },
    { title: 'DependencyAdded' },
  ),
  Type.Object({ kind: Type.Literal('dependency-removed'), parent: Type.String() }, { title: 'DependencyRemoved' }),
])

export const RevertResponse = Type.Object(
  {
    event: Type.Object(
      {
        id: Type.Integer({ minimum: 1 }),
        type: Type.String(),
        featureName: Type.String(),
        project: Type.String(),
        environment: Type.Union([Type.String(), Type.Null()]),
      },
      { description: 'The event reverted' },
    ),
    dryRun: Type.Boolean({ description: 'true: nothing was changed' }),
    changes: Type.Array(RevertChange, {
      description:
        'What the revert changes (or would), in the order it makes the changes; empty when the state before the event is already the state',
    }),
  },
  { description: 'The changes restoring the state before an event makes' },
)
