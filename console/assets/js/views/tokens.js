// @ts-check
import { replace } from '../dom.js'
import { pageHeader } from '../ui.js'
/** @param {import('../router.js').ViewContext} context */
export function tokensView({ main }) { replace(main, pageHeader('Tokens')) }
