// @ts-check
/**
 * The event types the server can revert, with the permission each needs: the console shows a
 * Revert button only where the caller may use it. The server's table is
 * src/features/revert/revert-diff.ts `REVERTIBLE`; test/revertible.unit.test.ts holds the two equal.
 */
export const REVERTIBLE = /** @type {Readonly<Record<string, string>>} */ ({
  'feature-metadata-updated': 'UPDATE_FEATURE',
  'feature-stale-on': 'UPDATE_FEATURE',
  'feature-stale-off': 'UPDATE_FEATURE',
  'feature-environment-enabled': 'UPDATE_FEATURE_ENVIRONMENT',
  'feature-environment-disabled': 'UPDATE_FEATURE_ENVIRONMENT',
  'feature-strategy-add': 'DELETE_FEATURE_STRATEGY',
  'feature-strategy-update': 'UPDATE_FEATURE_STRATEGY',
  'feature-strategy-remove': 'CREATE_FEATURE_STRATEGY',
  'feature-environment-variants-updated': 'UPDATE_FEATURE_ENVIRONMENT_VARIANTS',
  'feature-dependency-added': 'UPDATE_FEATURE_DEPENDENCY',
  'feature-dependency-removed': 'UPDATE_FEATURE_DEPENDENCY',
  'feature-dependencies-removed': 'UPDATE_FEATURE_DEPENDENCY',
})
