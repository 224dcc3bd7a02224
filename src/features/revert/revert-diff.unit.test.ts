import assert from 'node:assert/strict'
import { test } from 'node:test'
import { changesOf, conflictsOf, isRevertible, touches, type StoredEvent } from './revert-diff.ts'

let nextId = 1
const event = (type: string, fields: Partial<StoredEvent> = {}): StoredEvent => ({
  id: nextId++,
  type,
  createdBy: 'admin',
  createdAt: '2025-01-01T00:00:00.000Z',
  data: null,
  preData: null,
  featureName: 'checkout',
  project: 'default',
  environment: null,
  groupId: `group-${nextId}`,
  ...fields,
})

const flag = {
  name: 'checkout',
  description: null,
  type: 'release',
  project: 'default',
  stale: false,
  createdAt: '2025-01-01T00:00:00.000Z',
  impressionData: false,
  archived: false,
}
const strategy = {
  id: 'S1',
  name: 'default',
  constraints: [],
  parameters: {},
  variants: [],
  segments: [],
  title: null,
  disabled: false,
  sortOrder: 0,
}

test('revertible types: flag changes only', () => {
  assert.deepEqual(
    ['feature-strategy-update', 'feature-dependencies-removed', 'feature-created', 'segment-updated', 'toString'].map(isRevertible),
    [true, true, false, false, false],
  )
})

test('touches: metadata by field, switches and variants by environment, strategies by id, the dependency as one', () => {
  assert.deepEqual(touches(event('feature-metadata-updated', { data: { ...flag, description: 'x', stale: true }, preData: flag })), [
    'metadata:description',
    'metadata:stale',
  ])
  assert.deepEqual(touches(event('feature-stale-off')), ['metadata:stale'])
  assert.deepEqual(touches(event('feature-environment-disabled', { environment: 'production' })), ['enabled:production'])
  assert.deepEqual(touches(event('feature-strategy-remove', { preData: strategy })), ['strategy:S1'])
  assert.deepEqual(
    touches(
      event('strategy-order-changed', {
        data: { strategyIds: ['B', 'A', 'C'], sortOrders: [0, 1, 2] },
        preData: { strategyIds: ['A', 'B', 'C'], sortOrders: [0, 1, 2] },
      }),
    ),
    ['strategy:B', 'strategy:A'],
  )
  assert.deepEqual(touches(event('feature-environment-variants-updated', { environment: 'development' })), ['variants:development'])
  assert.deepEqual(touches(event('feature-dependencies-removed')), ['dependency'])
  assert.deepEqual(touches(event('feature-tagged')), [])
})

test('conflicts: later events of the same flag touching the same, not those of the same change or another flag', () => {
  const target = event('feature-strategy-update', { data: strategy, preData: strategy, environment: 'development' })
  const sameGroup = event('feature-environment-disabled', { groupId: target.groupId, environment: 'development' })
  const otherFlag = event('feature-strategy-remove', { featureName: 'other', preData: strategy })
  const otherStrategy = event('feature-strategy-remove', { preData: { ...strategy, id: 'S2' } })
  const removed = event('feature-strategy-remove', { preData: strategy })
  const reordered = event('strategy-order-changed', {
    data: { strategyIds: ['S1'], sortOrders: [5] },
    preData: { strategyIds: ['S1'], sortOrders: [0] },
  })
  assert.deepEqual(conflictsOf(target, [sameGroup, otherFlag, otherStrategy, removed, reordered]), [removed, reordered])
  assert.deepEqual(conflictsOf(removed, [target]), [], 'an earlier event is no conflict')
})

test('changesOf: the diff of the events a revert wrote, a stale change shown once', () => {
  const updated = { ...strategy, title: 'All', segments: [3] }
  const changes = changesOf([
    event('feature-metadata-updated', { data: { ...flag, stale: true, type: 'experiment' }, preData: flag }),
    event('feature-stale-on'),
    event('feature-strategy-add', { data: strategy, environment: 'production' }),
    event('feature-strategy-update', { data: updated, preData: strategy, environment: 'production' }),
    event('feature-strategy-remove', { preData: strategy, environment: 'production' }),
    event('feature-environment-enabled', { environment: 'production' }),
    event('feature-environment-variants-updated', {
      data: { variants: [] },
      preData: { variants: [{ name: 'a' }] },
      environment: 'production',
    }),
    event('feature-dependency-removed', { data: { feature: 'parent' } }),
    event('feature-dependency-added', { data: { feature: 'parent', enabled: false } }),
  ])
  assert.deepEqual(changes, [
    { kind: 'metadata', field: 'type', from: 'release', to: 'experiment' },
    { kind: 'metadata', field: 'stale', from: false, to: true },
    { kind: 'strategy-added', environment: 'production', strategy },
    {
      kind: 'strategy-updated',
      environment: 'production',
      strategyId: 'S1',
      fields: [
        { field: 'title', from: null, to: 'All' },
        { field: 'segments', from: [], to: [3] },
      ],
    },
    { kind: 'strategy-removed', environment: 'production', strategy },
    { kind: 'enabled', environment: 'production', from: false, to: true },
    { kind: 'variants', environment: 'production', from: [{ name: 'a' }], to: [] },
    { kind: 'dependency-removed', parent: 'parent' },
    { kind: 'dependency-added', parent: 'parent', enabled: false, variants: [] },
  ])
  assert.deepEqual(changesOf([event('feature-stale-off')]), [{ kind: 'metadata', field: 'stale', from: true, to: false }])
  assert.throws(() => changesOf([event('feature-created')]), /a revert wrote an event of type feature-created/)
})
