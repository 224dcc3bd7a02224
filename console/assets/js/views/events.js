// @ts-check
import { replace } from '../dom.js'
import { pageHeader } from '../ui.js'
/** @param {import('../router.js').ViewContext} context */
export function eventsView({ main }) { replace(main, pageHeader('Event log')) }
