// @ts-check
/**
 * Applications: the SDKs that registered or reported metrics (GET /metrics/applications), searched
 * by name and paged by the server; and one application: its environments with their instances and
 * SDK versions (…/:appName/overview, /metrics/instances/:appName/environment/:env), and the flags
 * it used.
 */
import { api, seg } from '../api.js'
import { formatDate, h, replace } from '../dom.js'
import { timeAgo } from '../exposure.js'
import { link } from '../router.js'
import { badge, errorBox, loading, pageHeader, section } from '../ui.js'

const PAGE_SIZE = 50

/** @typedef {{ project: string, environments: string[] }} Usage */
/** @typedef {{ appName: string, sdkVersion?: string, strategies?: string[], usage?: Usage[], description?: string, url?: string, instances?: Instance[], seenToggles?: (string | FlagUse)[] }} Application */
/** @typedef {{ instanceId: string, sdkVersion?: string | null, sdkType?: 'frontend' | 'backend' | null, clientIp?: string | null, lastSeen?: string | null, environment?: string }} Instance */
/** @typedef {{ name: string, instanceCount: number, sdks: string[], lastSeen: string | null, issues?: { missingFeatures?: string[], outdatedSdks?: string[] } }} OverviewEnvironment */
/** @typedef {{ projects: string[], featureCount: number, environments: OverviewEnvironment[], issues?: { missingStrategies?: string[] } }} Overview */
/** @typedef {{ name: string, project?: string, notFound?: boolean }} FlagUse */

/** @param {import('../router.js').ViewContext} context */
export async function applicationsView({ main, query, current }) {
  const search = h('input', {
    type: 'search',
    name: 'query',
    value: query.get('query') ?? '',
    autocomplete: 'off',
    'aria-label': 'Search applications',
    placeholder: 'Part of a name',
  })
  const results = h('div', { class: 'results' }, loading())
  replace(
    main,
    pageHeader('Applications', { subtitle: 'The applications whose SDKs registered or reported metrics in the last 48 hours.' }),
    h('div', { class: 'toolbar' }, h('div', { class: 'field' }, search)),
    results,
  )
  let page = 0
  let timer = 0
  search.addEventListener('input', () => {
    clearTimeout(timer)
    timer = window.setTimeout(() => {
      page = 0
      void load()
    }, 250)
  })

  async function load() {
    const asked = new URLSearchParams({ offset: String(page * PAGE_SIZE), limit: String(PAGE_SIZE) })
    if (search.value.trim()) asked.set('query', search.value.trim())
    /** @type {{ total: number, applications: Application[] }} */
    let answer
    try {
      answer = await api('GET', `/metrics/applications?${asked}`)
    } catch (error) {
      if (current()) replace(results, errorBox(error))
      return
    }
    if (!current()) return
    if (answer.total === 0) {
      replace(
        results,
        h(
          'p',
          { class: 'empty' },
          search.value.trim()
            ? 'No application has that in its name.'
            : 'No application has registered or reported metrics yet. Point an SDK at Pennon with a client token.',
        ),
      )
      return
    }
    const pages = Math.ceil(answer.total / PAGE_SIZE)
    replace(
      results,
      h(
        'p',
        { class: 'result-count' },
        `${page * PAGE_SIZE + 1}–${page * PAGE_SIZE + answer.applications.length} of ${answer.total} application${answer.total === 1 ? '' : 's'}`,
      ),
      h(
        'table',
        { class: 'table' },
        h('caption', { class: 'visually-hidden' }, 'Applications'),
        h(
          'thead',
          null,
          h(
            'tr',
            null,
            ['Application', 'SDK', 'Projects and environments', 'Strategies'].map((title) => h('th', { scope: 'col' }, title)),
          ),
        ),
        h(
          'tbody',
          null,
          answer.applications.map((application) =>
            h(
              'tr',
              { 'data-application': application.appName },
              h('th', { scope: 'row' }, h('a', { href: link('applications', application.appName) }, application.appName)),
              h('td', null, application.sdkVersion ? h('code', null, application.sdkVersion) : '–'),
              h('td', null, usageText(application.usage ?? [])),
              h('td', null, (application.strategies ?? []).length ? (application.strategies ?? []).join(', ') : '–'),
            ),
          ),
        ),
      ),
      pages > 1
        ? h(
            'nav',
            { class: 'pager', 'aria-label': 'Pages' },
            h(
              'button',
              {
                type: 'button',
                class: 'secondary',
                disabled: page === 0,
                onclick: () => {
                  page -= 1
                  void load()
                },
              },
              'Previous',
            ),
            h('span', null, `Page ${page + 1} of ${pages}`),
            h(
              'button',
              {
                type: 'button',
                class: 'secondary',
                disabled: page + 1 >= pages,
                onclick: () => {
                  page += 1
                  void load()
                },
              },
              'Next',
            ),
          )
        : null,
    )
  }

  await load()
}

/** @param {Usage[]} usage */
function usageText(usage) {
  if (usage.length === 0) return '–'
  return usage.map((entry) => `${entry.project === '*' ? 'every project' : entry.project}: ${entry.environments.join(', ')}`).join('; ')
}

/** @param {import('../router.js').ViewContext} context */
export async function applicationView({ main, params, current }) {
  const appName = params.appName ?? ''
  const crumbs = /** @type {[string, string][]} */ ([['Applications', '#/applications']])
  replace(main, pageHeader(appName, { crumbs }), loading())
  const base = `/metrics/applications/${seg(appName)}`
  /** @type {Application} */
  let application
  /** @type {Overview | null} */
  let overview
  try {
    ;[application, overview] = await Promise.all([api('GET', base), api('GET', `${base}/overview`).catch(() => null)])
  } catch (error) {
    if (current()) replace(main, pageHeader(appName, { crumbs }), errorBox(error))
    return
  }
  if (!current()) return
  const environments = overview?.environments ?? []
  // Instances as the application lists them, else per environment of its overview.
  /** @type {Instance[]} */
  let instances = application.instances ?? []
  if (!application.instances && environments.length) {
    const lists = await Promise.all(
      environments.map((environment) =>
        api('GET', `/metrics/instances/${seg(appName)}/environment/${seg(environment.name)}`)
          .then((/** @type {{ instances: Instance[] }} */ answer) =>
            answer.instances.map((instance) => ({ ...instance, environment: environment.name })),
          )
          .catch(() => []),
      ),
    )
    instances = lists.flat()
    if (!current()) return
  }
  const flags = (application.seenToggles ?? []).map((flag) => (typeof flag === 'string' ? { name: flag } : flag))
  const missingStrategies = overview?.issues?.missingStrategies ?? []
  const missingFeatures = [...new Set(environments.flatMap((environment) => environment.issues?.missingFeatures ?? []))]
  replace(
    main,
    pageHeader(appName, { crumbs, subtitle: application.description || undefined }),
    missingStrategies.length
      ? h(
          'p',
          { class: 'alert warn' },
          `It registered strategies Pennon does not define: ${missingStrategies.join(', ')}. Flags using them are off in it.`,
        )
      : null,
    missingFeatures.length
      ? h('p', { class: 'alert warn' }, `It asks for names that are no flags here: ${missingFeatures.join(', ')}.`)
      : null,
    h(
      'div',
      { class: 'grid-2' },
      section(
        'About',
        h(
          'dl',
          { class: 'facts' },
          h('dt', null, 'SDK'),
          h('dd', null, application.sdkVersion ? h('code', null, application.sdkVersion) : '–'),
          h('dt', null, 'Tokens for'),
          h('dd', null, usageText(application.usage ?? [])),
          h('dt', null, 'Strategies'),
          h('dd', null, (application.strategies ?? []).join(', ') || '–'),
          application.url
            ? [
                h('dt', null, 'Link'),
                // Any text an editor sent: only an http or https address is followed, anything else is shown.
                h(
                  'dd',
                  null,
                  /^https?:\/\//i.test(application.url)
                    ? h('a', { href: application.url, rel: 'noreferrer' }, application.url)
                    : application.url,
                ),
              ]
            : null,
        ),
      ),
      section(
        'Environments',
        environments.length
          ? h(
              'table',
              { class: 'table compact' },
              h(
                'thead',
                null,
                h(
                  'tr',
                  null,
                  ['Environment', 'Instances', 'SDK versions', 'Last seen'].map((title) => h('th', { scope: 'col' }, title)),
                ),
              ),
              h(
                'tbody',
                null,
                environments.map((environment) =>
                  h(
                    'tr',
                    { 'data-environment': environment.name },
                    h('th', { scope: 'row' }, environment.name),
                    h('td', null, String(environment.instanceCount)),
                    h(
                      'td',
                      null,
                      environment.sdks.map((sdk, index) => [index ? ', ' : '', h('code', null, sdk)]),
                    ),
                    h('td', { title: formatDate(environment.lastSeen) }, timeAgo(environment.lastSeen)),
                  ),
                ),
              ),
            )
          : h('p', { class: 'empty' }, 'Not seen in any environment in the last 24 hours.'),
      ),
    ),
    section(
      'Instances',
      instances.length
        ? h(
            'table',
            { class: 'table' },
            h('caption', { class: 'visually-hidden' }, 'Instances'),
            h(
              'thead',
              null,
              h(
                'tr',
                null,
                ['Instance', 'Environment', 'SDK version', 'Address', 'Last seen'].map((title) => h('th', { scope: 'col' }, title)),
              ),
            ),
            h(
              'tbody',
              null,
              instances.map((instance) =>
                h(
                  'tr',
                  { 'data-instance': instance.instanceId },
                  h('th', { scope: 'row' }, h('code', null, instance.instanceId)),
                  h('td', null, instance.environment ?? '–'),
                  h(
                    'td',
                    null,
                    instance.sdkVersion ? h('code', null, instance.sdkVersion) : '–',
                    instance.sdkType ? [' ', badge(instance.sdkType)] : null,
                  ),
                  h('td', null, instance.clientIp ?? '–'),
                  h('td', { title: formatDate(instance.lastSeen) }, timeAgo(instance.lastSeen)),
                ),
              ),
            ),
          )
        : h('p', { class: 'empty' }, 'No instance seen in the last 48 hours.'),
    ),
    section(
      `Flags used${overview ? ` (${overview.featureCount})` : ''}`,
      flags.length
        ? h(
            'ul',
            { class: 'plain flag-uses' },
            flags.map((flag) =>
              h(
                'li',
                { 'data-flag': flag.name },
                flag.project
                  ? h('a', { href: link('projects', flag.project, 'features', flag.name) }, flag.name)
                  : h('code', null, flag.name),
                flag.project ? h('span', { class: 'hint' }, ` in ${flag.project}`) : null,
                flag.notFound ? [' ', badge('no longer a flag', 'warn')] : null,
              ),
            ),
          )
        : h('p', { class: 'empty' }, 'No flag reported in the last 48 hours.'),
    ),
  )
}
