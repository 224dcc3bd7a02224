// @ts-check
import { replace } from '../dom.js'
import { pageHeader } from '../ui.js'
/** @param {import('../router.js').ViewContext} context */
export function segmentsView({ main }) { replace(main, pageHeader('Segments')) }
/** @param {import('../router.js').ViewContext} context */
export function segmentEditView({ main }) { replace(main, pageHeader('Segment')) }
