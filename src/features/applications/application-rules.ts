/** Pure rules of the application reads: which SDK versions are outdated, and how SDK versions group. */
import semver from 'semver'

/**
 * The oldest version of each SDK the reference does not call outdated (its findOutdatedSdks), by
 * the name an SDK reports in `sdkVersion` (`<name>:<version>`).
 */
const MINIMUM_VERSIONS: Readonly<Record<string, string>> = {
  'unleash-client-node': '5.3.2',
  'unleash-client-nextjs': '1.6.2',
  'unleash-client-java': '9.2.0',
  'unleash-client-go': '4.1.0',
  'unleash-client-python': '5.11.0',
  'unleash-client-ruby': '5.0.0',
  'unleash-client-dotnet': '4.1.3',
  'unleash-client-php': '2.3.0',
  'unleash-node-sdk': '6.6.0',
  'unleash-nextjs-sdk': '1.6.2',
  'unleash-java-sdk': '11.0.2',
  'unleash-go-sdk': '5.0.3',
  'unleash-python-sdk': '6.3.0',
  'unleash-ruby-sdk': '6.3.1',
  'unleash-dotnet-sdk': '5.3.0',
  'unleash-php-sdk': '2.9.1',
}

/** Splits `unleash-node-sdk:6.12.1` into its name and version (empty when there is none). */
export function sdkParts(sdkVersion: string): { name: string; version: string } {
  const at = sdkVersion.indexOf(':')
  return at < 0 ? { name: sdkVersion, version: '' } : { name: sdkVersion.slice(0, at), version: sdkVersion.slice(at + 1) }
}

/** Whether an SDK version is older than the oldest the reference accepts for that SDK (unknown SDKs never are). */
export function isOutdatedSdk(sdkVersion: string): boolean {
  const { name, version } = sdkParts(sdkVersion)
  const minimum = MINIMUM_VERSIONS[name]
  return minimum !== undefined && semver.valid(version) !== null && semver.lt(version, minimum)
}

/** Sorted, without repeats. */
export const distinctSorted = (values: Iterable<string>): string[] => [...new Set(values)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))

/** SDK versions grouped by SDK name, both sorted: `[{ name: 'unleash-node-sdk', versions: ['6.12.1'] }]`. */
export function groupSdks(sdkVersions: Iterable<string>): Array<{ name: string; versions: string[] }> {
  const byName = new Map<string, Set<string>>()
  for (const sdkVersion of sdkVersions) {
    const { name, version } = sdkParts(sdkVersion)
    const versions = byName.get(name) ?? new Set()
    byName.set(name, versions)
    if (version !== '') versions.add(version)
  }
  return distinctSorted(byName.keys()).map((name) => ({ name, versions: distinctSorted(byName.get(name)!) }))
}
