/** What the client API tests expect of a flag (the features list and the delta events alike). */

/** A flag as the client API shows it, every field at its default unless given. */
export const flag = (name: string, fields: Record<string, unknown> = {}) => ({
  name,
  type: 'release',
  enabled: false,
  project: 'default',
  stale: false,
  strategies: [],
  variants: [],
  description: null,
  impressionData: false,
  ...fields,
})

/** The strategy `on` adds to a flag without one, as the client API shows it. */
export const rolloutOf = (feature: string) => ({
  name: 'flexibleRollout',
  constraints: [],
  parameters: { rollout: '100', stickiness: 'default', groupId: feature },
  variants: [],
})
