// @ts-check
/** Boot: who is signed in, the top bar, and the view of the current hash. */
import { api, request, setUnauthenticatedHandler } from './api.js'
import { announce, h, replace } from './dom.js'
import { renderRoute, route } from './router.js'
import { can, forgetToken, openAccess, session, storedToken } from './session.js'
import { errorBox, pageHeader } from './ui.js'
import { signInView } from './views/signin.js'
import { resetPasswordView } from './views/reset-password.js'
import { newUserView } from './views/new-user.js'
import { usersView } from './views/users.js'
import { profileView } from './views/profile.js'
import { projectsView } from './views/projects.js'
import { projectView } from './views/project.js'
import { flagView } from './views/flag.js'
import { flagsView } from './views/flags.js'
import { segmentsView, segmentEditView } from './views/segments.js'
import { eventsView } from './views/events.js'
import { tokensView } from './views/tokens.js'
import { strategiesView } from './views/strategies.js'
import { contextFieldsView } from './views/context-fields.js'
import { playgroundView } from './views/playground.js'
import { applicationsView, applicationView } from './views/applications.js'
import { integrationEditView, integrationsView } from './views/integrations.js'
import { integrationDeliveriesView } from './views/integration-deliveries.js'
import { changeRequestView, changeRequestsView } from './views/change-requests.js'
import { singleSignOnView } from './views/single-sign-on.js'

route('/projects', projectsView)
route('/projects/:projectId', projectView)
route('/projects/:projectId/events', eventsView)
route('/projects/:projectId/change-requests', changeRequestsView)
route('/projects/:projectId/change-requests/:id', changeRequestView)
route('/projects/:projectId/features/:name', flagView)
route('/flags', flagsView)
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
route('/integrations', integrationsView)
route('/integrations/new/:provider', integrationEditView)
route('/integrations/:id', integrationEditView)
route('/integrations/:id/deliveries', integrationDeliveriesView)
route('/users', usersView)
route('/profile', profileView)
route('/single-sign-on', singleSignOnView)

const main = /** @type {HTMLElement} */ (document.getElementById('main'))
const who = /** @type {HTMLElement} */ (document.getElementById('who'))
const nav = /** @type {HTMLElement} */ (document.getElementById('nav'))

/**
 * Ends a session (POST /logout) or forgets the token, then shows the sign-in form; or, with single
 * sign-out, goes to the provider's end-session page the answer names, to sign out there too.
 */
async function signOut() {
  /** @type {string | undefined} */
  let redirectUrl
  if (session.me?.session) {
    try {
      const answer = await request('POST', '/logout', undefined, { token: null })
      if (typeof answer?.redirectUrl === 'string') redirectUrl = answer.redirectUrl
    } catch {
      // The session may be over already; the cookie is HttpOnly, so only the server can clear it.
    }
  }
  forgetToken()
  if (redirectUrl) {
    location.assign(redirectUrl)
    return
  }
  await render()
}

setUnauthenticatedHandler((reason, username) => {
  const notice =
    reason ??
    (storedToken() ? 'Your token is no longer accepted (deleted or expired). Sign in again.' : 'Your session has ended. Sign in again.')
  forgetToken()
  void render(notice, username)
})

/**
 * Who this tab acts as: the stored token's owner, else the session cookie's (GET /me answers 401
 * when there is none), else nobody.
 */
async function identify() {
  try {
    if (openAccess() || !storedToken()) session.me = await api('GET', '/me', undefined, { token: null })
    else session.me = await api('GET', '/me', undefined, { token: storedToken() })
  } catch (error) {
    forgetToken()
    if (openAccess()) throw error
  }
}

/**
 * Nav items for one permission (`data-needs`): shown disabled, naming it, to whoever lacks it, as
 * guard() shows controls.
 */
function guardNav() {
  for (const link of nav.querySelectorAll('a[data-needs]')) {
    const permission = link.getAttribute('data-needs') ?? ''
    const note = link.nextElementSibling?.classList.contains('needs') ? link.nextElementSibling : null
    const href = link.getAttribute('data-href')
    if (can(permission)) {
      if (href !== null) link.setAttribute('href', href)
      link.removeAttribute('aria-disabled')
      link.removeAttribute('title')
      note?.remove()
    } else {
      if (href === null) link.setAttribute('data-href', link.getAttribute('href') ?? '')
      link.removeAttribute('href')
      link.setAttribute('role', 'link')
      link.setAttribute('aria-disabled', 'true')
      link.setAttribute('title', `You need the ${permission} permission`)
      if (!note) link.after(h('small', { class: 'needs' }, `Needs ${permission}`))
    }
  }
}

/**
 * @param {string} [notice] shown on the sign-in form
 * @param {string} [username] filled in on the sign-in form
 */
async function render(notice, username) {
  const [path = '', search = ''] = location.hash.slice(1).split('?', 2)
  if (path === '/reset-password') {
    // A page for people who cannot sign in yet: outside the signed-in frame.
    nav.hidden = true
    replace(who)
    await resetPasswordView(main, new URLSearchParams(search).get('token') ?? '', async (name) => {
      history.replaceState(null, '', '#/projects')
      // Setting a password ends the person's sessions: this tab may be signed out now.
      await identify()
      if (session.me) announce('The password is set.')
      await render('Your password is set: sign in with it.', name)
    })
    return
  }
  if (path === '/new-user') {
    // Signing up with an invite link: outside the signed-in frame too.
    nav.hidden = true
    replace(who)
    await newUserView(main, new URLSearchParams(search).get('invite') ?? '', async (email) => {
      history.replaceState(null, '', '#/projects')
      await render('Your account is made: sign in with it.', email)
    })
    return
  }
  if (!session.me) {
    nav.hidden = true
    replace(who)
    await signInView(main, notice, () => render(), { username })
    return
  }
  nav.hidden = false
  guardNav()
  const me = session.me
  replace(
    who,
    // A person's name leads to their profile; tokens have none.
    me.kind === 'user'
      ? h('a', { class: 'who-name', href: '#/profile', title: 'Your profile' }, me.name)
      : h('span', { class: 'who-name' }, me.name),
    ' ',
    h('span', { class: `badge role-${me.rootRole.toLowerCase()}` }, me.rootRole),
    me.kind === 'open-access' ? null : h('button', { type: 'button', class: 'link', onclick: () => signOut() }, 'Sign out'),
  )
  for (const link of nav.querySelectorAll('a')) {
    const target = (link.getAttribute('href') ?? link.getAttribute('data-href') ?? '').slice(1)
    if (path === target || path.startsWith(`${target}/`)) link.setAttribute('aria-current', 'page')
    else link.removeAttribute('aria-current')
  }
  await renderRoute(main, '#/projects', ({ main: target }) =>
    replace(
      target,
      pageHeader('Not found'),
      h('p', null, 'No page has this address. ', h('a', { href: '#/projects' }, 'Go to the projects.')),
    ),
  )
}

async function boot() {
  const skip = document.getElementById('skip')
  skip?.addEventListener('click', (event) => {
    event.preventDefault()
    main.focus()
  })
  try {
    await identify()
  } catch (error) {
    replace(main, errorBox(error))
    return
  }
  window.addEventListener('hashchange', () => {
    void render()
  })
  await render()
}

void boot()
