// @ts-check
/**
 * A flag's exposure: per environment, when an SDK last reported it and how often it was on and off
 * each hour of the last 48 (GET /client-metrics/features/:name/raw?hoursBack=48), as a chart the
 * console draws itself (exposure-chart.js). Loaded after the rest of the flag's page.
 */
import { api, seg } from '../api.js'
import { formatDate, h, replace } from '../dom.js'
import { exposureChart } from '../exposure-chart.js'
import { exposureByEnvironment, timeAgo } from '../exposure.js'
import { errorBox, loading, section } from '../ui.js'

export const EXPOSURE_HOURS = 48

/**
 * @param {string} name the flag
 * @param {{ name: string, lastSeenAt?: string | null }[]} environments
 * @param {() => boolean} current false once the page was left or rebuilt
 */
export function exposureSection(name, environments, current) {
  const body = h('div', { class: 'exposure' }, loading())
  void load()
  return section(`Exposure, last ${EXPOSURE_HOURS} hours`, body)

  async function load() {
    /** @type {{ data: import('../exposure.js').HourlyCount[] }} */
    let answer
    try {
      answer = await api('GET', `/client-metrics/features/${seg(name)}/raw?hoursBack=${EXPOSURE_HOURS}`)
    } catch (error) {
      if (current()) replace(body, errorBox(error))
      return
    }
    if (!current()) return
    const lastSeen = new Map(environments.map((environment) => [environment.name, environment.lastSeenAt ?? null]))
    const exposures = exposureByEnvironment(
      answer.data,
      environments.map((environment) => environment.name),
    )
    replace(
      body,
      h(
        'p',
        { class: 'legend' },
        h('span', { class: 'swatch yes', 'aria-hidden': 'true' }),
        ' on (yes) ',
        h('span', { class: 'swatch no', 'aria-hidden': 'true' }),
        ' off (no), per hour, every application added up',
      ),
      exposures.map((exposure) => {
        const seen = lastSeen.get(exposure.environment) ?? null
        return h(
          'div',
          { class: 'exposure-environment', 'data-exposure': exposure.environment },
          h(
            'div',
            { class: 'environment-head' },
            h('h3', null, exposure.environment),
            h(
              'span',
              { class: 'hint', 'data-last-seen': seen ?? '', title: seen ? formatDate(seen) : undefined },
              `Last seen ${timeAgo(seen)}`,
            ),
            h('span', { class: 'hint' }, `${exposure.yes + exposure.no} evaluations: ${exposure.yes} yes, ${exposure.no} no`),
          ),
          exposure.yes + exposure.no > 0
            ? h('div', { class: 'chart-box' }, exposureChart(exposure))
            : h('p', { class: 'empty' }, `No evaluations reported in the last ${EXPOSURE_HOURS} hours.`),
        )
      }),
    )
  }
}
