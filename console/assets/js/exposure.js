// @ts-check
/**
 * A flag's exposure from its hourly counts (GET /client-metrics/features/:name/raw): yes and no
 * per hour and environment, the applications added up; and "last seen" in words. Pure, so it is
 * unit-tested (test/exposure.test.ts); exposure-chart.js draws it.
 */

/** @typedef {{ featureName?: string, appName: string, environment: string, timestamp: string, yes: number, no: number, variants?: Record<string, number> }} HourlyCount */
/** @typedef {{ hour: string, yes: number, no: number }} ExposureHour */
/** @typedef {{ environment: string, hours: ExposureHour[], yes: number, no: number }} Exposure */

/**
 * Per environment, every hour the answer covers (oldest first), each application's counts added.
 * Environments in `environments` come first, in that order, even without counts; others follow by name.
 * @param {HourlyCount[]} data
 * @param {string[]} [environments]
 * @returns {Exposure[]}
 */
export function exposureByEnvironment(data, environments = []) {
  const hours = [...new Set(data.map((entry) => entry.timestamp))].sort()
  const names = [
    ...environments,
    ...[...new Set(data.map((entry) => entry.environment))].filter((name) => !environments.includes(name)).sort(),
  ]
  return names.map((environment) => {
    /** @type {Map<string, ExposureHour>} */
    const byHour = new Map(hours.map((hour) => [hour, { hour, yes: 0, no: 0 }]))
    for (const entry of data) {
      if (entry.environment !== environment) continue
      const slot = byHour.get(entry.timestamp)
      if (!slot) continue
      slot.yes += entry.yes
      slot.no += entry.no
    }
    const series = [...byHour.values()]
    return {
      environment,
      hours: series,
      yes: series.reduce((sum, hour) => sum + hour.yes, 0),
      no: series.reduce((sum, hour) => sum + hour.no, 0),
    }
  })
}

/**
 * `3 minutes ago`, `never`; a time a little ahead of this clock is `just now`.
 * @param {string | null | undefined} iso
 * @param {number} [now]
 */
export function timeAgo(iso, now = Date.now()) {
  if (!iso) return 'never'
  const then = Date.parse(iso)
  if (Number.isNaN(then)) return iso
  const seconds = Math.round((now - then) / 1000)
  if (seconds < 60) return 'just now'
  /** @type {[number, string][]} */
  const units = [
    [60 * 60 * 24, 'day'],
    [60 * 60, 'hour'],
    [60, 'minute'],
  ]
  for (const [size, unit] of units) {
    if (seconds >= size) {
      const count = Math.floor(seconds / size)
      return `${count} ${unit}${count === 1 ? '' : 's'} ago`
    }
  }
  return 'just now'
}

/**
 * The scale of a chart: the largest hour's total rounded up to a round number (1, 2 or 5 × 10ⁿ),
 * so the axis label reads well. At least 1.
 * @param {ExposureHour[]} hours
 */
export function chartMaximum(hours) {
  const top = Math.max(1, ...hours.map((hour) => hour.yes + hour.no))
  const magnitude = 10 ** Math.floor(Math.log10(top))
  for (const step of [1, 2, 5, 10]) if (step * magnitude >= top) return step * magnitude
  return 10 * magnitude
}
