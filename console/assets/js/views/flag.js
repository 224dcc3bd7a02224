// @ts-check
import { replace } from '../dom.js'
import { pageHeader } from '../ui.js'
/** @param {import('../router.js').ViewContext} context */
export function flagView({ main, params }) { replace(main, pageHeader(params.name ?? '')) }
