// @ts-check
/**
 * Hash routes (`#/projects/default`): deep links work without any server route, and the
 * token never appears in them.
 */

/**
 * @typedef {object} ViewContext
 * @property {Record<string, string>} params decoded path parameters
 * @property {URLSearchParams} query the part after `?` in the hash
 * @property {HTMLElement} main where the view renders
 * @property {(cleanup: () => void) => void} onLeave runs when another view replaces this one
 * @property {() => boolean} current false once the user went elsewhere (drop late answers)
 */

/** @typedef {(context: ViewContext) => void | Promise<void>} View */

/** @type {{ pattern: RegExp, names: string[], view: View }[]} */
const routes = []

/**
 * @param {string} path like `/projects/:projectId/features/:name`
 * @param {View} view
 */
export function route(path, view) {
  /** @type {string[]} */
  const names = []
  const pattern = new RegExp(
    `^${path.replace(/:([a-zA-Z]+)/g, (_match, name) => {
      names.push(name)
      return '([^/]+)'
    })}$`,
  )
  routes.push({ pattern, names, view })
}

/** @param {string} hash */
export function navigate(hash) {
  if (location.hash === hash) window.dispatchEvent(new HashChangeEvent('hashchange'))
  else location.hash = hash
}

/** Builds `#/a/b` from raw segments, each encoded. @param {...string} segments */
export function link(...segments) {
  return `#/${segments.map((segment) => encodeURIComponent(segment)).join('/')}`
}

let generation = 0
/** @type {(() => void)[]} */
let cleanups = []

/**
 * Renders the view of the current hash into `main`; unknown hashes go to `fallback`.
 * @param {HTMLElement} main
 * @param {string} fallback
 * @param {View} notFound
 */
export async function renderRoute(main, fallback, notFound) {
  for (const cleanup of cleanups) cleanup()
  cleanups = []
  generation += 1
  const mine = generation
  const raw = location.hash.startsWith('#/') ? location.hash.slice(1) : ''
  if (raw === '') {
    history.replaceState(null, '', fallback)
    return renderRoute(main, fallback, notFound)
  }
  const [path = '', search = ''] = raw.split('?', 2)
  for (const { pattern, names, view } of routes) {
    const match = pattern.exec(path)
    if (!match) continue
    /** @type {Record<string, string>} */
    const params = {}
    names.forEach((name, index) => {
      params[name] = decodeURIComponent(match[index + 1] ?? '')
    })
    return show(view, {
      params,
      query: new URLSearchParams(search),
      main,
      onLeave: (cleanup) => cleanups.push(cleanup),
      current: () => mine === generation,
    })
  }
  return show(notFound, { params: {}, query: new URLSearchParams(), main, onLeave: () => {}, current: () => mine === generation })
}

/**
 * @param {View} view
 * @param {ViewContext} context
 */
async function show(view, context) {
  context.main.setAttribute('aria-busy', 'true')
  try {
    await view(context)
  } finally {
    if (context.current()) {
      context.main.removeAttribute('aria-busy')
      // Move focus to the new page's heading, as a page load would.
      const heading = context.main.querySelector('h1')
      if (heading instanceof HTMLElement) {
        heading.tabIndex = -1
        heading.focus({ preventScroll: true })
        document.title = `${heading.textContent ?? ''} · Pennon`
      }
    }
  }
}
