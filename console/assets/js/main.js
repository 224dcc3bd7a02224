// @ts-check
/** Boot: who is signed in, the top bar, and the view of the current hash. */
import { api, setUnauthenticatedHandler } from './api.js'
import { h, replace } from './dom.js'
import { renderRoute, route } from './router.js'
import { forgetToken, openAccess, session, storedToken } from './session.js'
import { errorBox, pageHeader } from './ui.js'
import { signInView } from './views/signin.js'
import { projectsView } from './views/projects.js'
import { projectView } from './views/project.js'
import { flagView } from './views/flag.js'
import { segmentsView, segmentEditView } from './views/segments.js'
import { eventsView } from './views/events.js'
import { tokensView } from './views/tokens.js'
import { strategiesView } from './views/strategies.js'
import { contextFieldsView } from './views/context-fields.js'
import { playgroundView } from './views/playground.js'
import { applicationsView, applicationView } from './views/applications.js'

route('/projects', projectsView)
route('/projects/:projectId', projectView)
route('/projects/:projectId/events', eventsView)
route('/projects/:projectId/features/:name', flagView)
route('/projects/:projectId/features/:name/events', eventsView)
route('/segments', segmentsView)
route('/segments/new', segmentEditView)
route('/segments/:id', segmentEditView)
route('/events', eventsView)
route('/tokens', tokensView)
route('/strategies', strategiesView)
route('/context-fields', contextFieldsView)
route('/playground', playgroundView)
route('/applications', applicationsView)
route('/applications/:appName', applicationView)

const main = /** @type {HTMLElement} */ (document.getElementById('main'))
const who = /** @type {HTMLElement} */ (document.getElementById('who'))
const nav = /** @type {HTMLElement} */ (document.getElementById('nav'))

/** @param {string} [notice] shown on the sign-in form */
function signOut(notice) {
  forgetToken()
  render(notice)
}

setUnauthenticatedHandler(() => signOut('Your token is no longer accepted (deleted or expired). Sign in again.'))

/** @param {string} [notice] */
async function render(notice) {
  if (!session.me) {
    nav.hidden = true
    replace(who)
    await signInView(main, notice, () => render())
    return
  }
  nav.hidden = false
  const me = session.me
  replace(who,
    h('span', { class: 'who-name' }, me.name),
    ' ',
    h('span', { class: `badge role-${me.rootRole.toLowerCase()}` }, me.rootRole),
    me.kind === 'open-access' ? null : h('button', { type: 'button', class: 'link', onclick: () => signOut() }, 'Sign out'))
  const path = location.hash.slice(1).split('?')[0] ?? ''
  for (const link of nav.querySelectorAll('a')) {
    const target = (link.getAttribute('href') ?? '').slice(1)
    if (path === target || path.startsWith(`${target}/`)) link.setAttribute('aria-current', 'page')
    else link.removeAttribute('aria-current')
  }
  await renderRoute(main, '#/projects', ({ main: target }) => replace(target, pageHeader('Not found'), h('p', null, 'No page has this address. ', h('a', { href: '#/projects' }, 'Go to the projects.'))))
}

async function boot() {
  const skip = document.getElementById('skip')
  skip?.addEventListener('click', (event) => {
    event.preventDefault()
    main.focus()
  })
  try {
    if (openAccess()) session.me = await api('GET', '/me', undefined, { token: null })
    else if (storedToken()) session.me = await api('GET', '/me', undefined, { token: storedToken() })
  } catch (error) {
    forgetToken()
    if (openAccess()) {
      replace(main, errorBox(error))
      return
    }
  }
  window.addEventListener('hashchange', () => { void render() })
  await render()
}

void boot()
