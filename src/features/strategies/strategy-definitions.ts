/** The activation strategies every instance has, as `GET /api/admin/strategies` lists them. */

export interface StrategyParameterDefinition {
  name: string
  type: 'string' | 'percentage' | 'list' | 'number' | 'boolean'
  description: string
  required: boolean
}

export interface StrategyDefinition {
  title: string | null
  name: string
  displayName: string | null
  description: string | null
  editable: boolean
  deprecated: boolean
  parameters: StrategyParameterDefinition[]
}

const list = (name: string, description: string, required: boolean): StrategyParameterDefinition => ({ name, type: 'list', description, required })

/**
 * In the reference's order and words. `userWithId` is there too, deprecated as in the reference's
 * 5.x instances (7.x fresh instances no longer have it): SDKs still evaluate it.
 */
export const BUILT_IN_STRATEGIES: readonly StrategyDefinition[] = [
  {
    title: null,
    name: 'flexibleRollout',
    displayName: 'Gradual rollout',
    description: 'Roll out to a percentage of your userbase, and ensure that the experience is the same for the user on each visit.',
    editable: false,
    deprecated: false,
    parameters: [
      { name: 'rollout', type: 'percentage', description: '', required: false },
      { name: 'stickiness', type: 'string', description: 'Used define stickiness. Possible values: default, userId, sessionId, random', required: true },
      { name: 'groupId', type: 'string', description: 'Used to define a activation groups, which allows you to correlate across feature toggles.', required: true },
    ],
  },
  {
    title: null,
    name: 'default',
    displayName: 'Standard',
    description: 'This strategy turns on / off for your entire userbase. Prefer using "Gradual rollout" strategy (100%=on, 0%=off).',
    editable: false,
    deprecated: false,
    parameters: [],
  },
  {
    title: null,
    name: 'userWithId',
    displayName: 'UserIDs',
    description: 'Enable the feature for a specific set of userIds. Prefer using "Gradual rollout" strategy with user id constraints.',
    editable: false,
    deprecated: true,
    parameters: [list('userIds', '', false)],
  },
  {
    title: null,
    name: 'remoteAddress',
    displayName: 'IPs',
    description: 'Enable the feature for a specific set of IP addresses.',
    editable: false,
    deprecated: false,
    parameters: [list('IPs', 'List of IPs to enable the feature toggle for.', true)],
  },
  {
    title: null,
    name: 'applicationHostname',
    displayName: 'Hosts',
    description: 'Enable the feature for a specific set of hostnames.',
    editable: false,
    deprecated: false,
    parameters: [list('hostNames', 'List of hostnames to enable the feature toggle for.', false)],
  },
]

export const BUILT_IN_STRATEGY_NAMES: ReadonlySet<string> = new Set(BUILT_IN_STRATEGIES.map((strategy) => strategy.name))
