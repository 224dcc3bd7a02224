// @ts-check
/**
 * An exposure chart: one stacked bar per hour (yes below, no above), drawn as plain SVG by the
 * console. Each bar is a `<g>` with `data-hour`, `data-yes` and `data-no`, so what is drawn can
 * be read back (the browser test adds them up), and a `<title>` a pointer or screen reader gets.
 */
import { chartMaximum } from './exposure.js'

const SVG = 'http://www.w3.org/2000/svg'
const BAR = 12
const GAP = 2
const HEIGHT = 120
const LEFT = 44
const BOTTOM = 18

/**
 * @param {string} tag
 * @param {Record<string, string | number>} [attributes]
 * @param {...(Element | string)} children
 */
function svg(tag, attributes = {}, ...children) {
  const element = document.createElementNS(SVG, tag)
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value))
  for (const child of children) element.append(child)
  return element
}

/** @param {string} iso */
function hourLabel(iso) {
  const date = new Date(iso)
  return `${String(date.getHours()).padStart(2, '0')}:00`
}

/**
 * @param {import('./exposure.js').Exposure} exposure
 * @returns {SVGSVGElement}
 */
export function exposureChart(exposure) {
  const maximum = chartMaximum(exposure.hours)
  const width = LEFT + exposure.hours.length * (BAR + GAP)
  const scale = (/** @type {number} */ count) => (count / maximum) * HEIGHT
  const bars = exposure.hours.map((hour, index) => {
    const x = LEFT + index * (BAR + GAP)
    const yesHeight = scale(hour.yes)
    const noHeight = scale(hour.no)
    const when = new Date(hour.hour).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })
    return svg(
      'g',
      { class: 'bar', 'data-hour': hour.hour, 'data-yes': hour.yes, 'data-no': hour.no },
      svg('title', {}, `${when}: ${hour.yes} yes, ${hour.no} no`),
      // A transparent full-height box: the hour's title shows wherever the pointer is in its column.
      svg('rect', { class: 'bar-hit', x, y: 0, width: BAR, height: HEIGHT }),
      svg('rect', { class: 'bar-yes', x, y: HEIGHT - yesHeight, width: BAR, height: yesHeight }),
      svg('rect', { class: 'bar-no', x, y: HEIGHT - yesHeight - noHeight, width: BAR, height: noHeight }),
    )
  })
  const labels = exposure.hours.flatMap((hour, index) =>
    index % 6 === 0 ? [svg('text', { class: 'axis', x: LEFT + index * (BAR + GAP), y: HEIGHT + BOTTOM - 4 }, hourLabel(hour.hour))] : [],
  )
  const total = exposure.yes + exposure.no
  return /** @type {SVGSVGElement} */ (
    svg(
      'svg',
      {
        class: 'exposure-chart',
        viewBox: `0 0 ${width} ${HEIGHT + BOTTOM}`,
        role: 'img',
        'aria-label': `${exposure.environment}: ${total} evaluation${total === 1 ? '' : 's'} in the last ${exposure.hours.length} hours, ${exposure.yes} yes and ${exposure.no} no`,
        'data-environment': exposure.environment,
      },
      svg('line', { class: 'axis-line', x1: LEFT - 2, y1: HEIGHT, x2: width, y2: HEIGHT }),
      svg('text', { class: 'axis', x: LEFT - 6, y: 10, 'text-anchor': 'end' }, String(maximum)),
      svg('text', { class: 'axis', x: LEFT - 6, y: HEIGHT, 'text-anchor': 'end' }, '0'),
      ...bars,
      ...labels,
    )
  )
}
