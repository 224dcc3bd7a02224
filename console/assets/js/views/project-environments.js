// @ts-check
/**
 * A project's environments: every environment of the instance, whether the project has it, and
 * (for an admin) adding or removing it. Removing one drops the state, strategies and variants
 * of the project's flags there, so it is confirmed first; the server refuses the last one.
 */
import { api, seg } from '../api.js'
import { confirmDialog, h, replace } from '../dom.js'
import { badge, errorBox, guard, loading, runAction, section } from '../ui.js'

/** @typedef {{ name: string, type: string, enabled: boolean, sortOrder: number, visible: boolean, projectEnabledToggleCount: number, projectApiTokenCount: number }} ProjectEnvironment */

/**
 * A section that loads itself.
 * @param {string} projectId
 * @param {() => boolean} current false once the user went elsewhere
 */
export function projectEnvironments(projectId, current) {
  const notice = h('div', { 'aria-live': 'polite' })
  const body = h('div', null, loading())
  const place = `/projects/${seg(projectId)}/environments`

  async function load() {
    /** @type {{ environments: ProjectEnvironment[] }} */
    let answer
    try {
      answer = await api('GET', `/environments/project/${seg(projectId)}`)
    } catch (error) {
      if (current()) replace(body, errorBox(error))
      return
    }
    if (current()) replace(body, table(answer.environments))
  }

  /** @param {ProjectEnvironment[]} environments */
  function table(environments) {
    return h(
      'table',
      { class: 'table', 'data-environments': projectId },
      h('caption', { class: 'visually-hidden' }, `Environments, and whether ${projectId} has them`),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          ['Environment', 'Type', `In ${projectId}`, 'Flags on', 'Actions'].map((title) => h('th', { scope: 'col' }, title)),
        ),
      ),
      h(
        'tbody',
        null,
        environments.map((environment) =>
          h(
            'tr',
            { 'data-environment': environment.name },
            h('th', { scope: 'row' }, environment.name, environment.enabled ? null : [' ', badge('disabled', 'warn')]),
            h('td', null, badge(environment.type)),
            h('td', null, environment.visible ? badge('yes', 'ok') : 'no'),
            h('td', null, environment.visible ? String(environment.projectEnabledToggleCount) : '–'),
            h(
              'td',
              null,
              environment.visible
                ? guard(
                    h(
                      'button',
                      {
                        type: 'button',
                        class: 'link danger',
                        'aria-label': `Remove environment ${environment.name} from ${projectId}`,
                        onclick: () => remove(environment),
                      },
                      'Remove',
                    ),
                    'ADMIN',
                  )
                : guard(
                    h(
                      'button',
                      {
                        type: 'button',
                        class: 'secondary small',
                        'aria-label': `Add environment ${environment.name} to ${projectId}`,
                        onclick: () =>
                          run(() => api('POST', place, { environment: environment.name }), `${environment.name} added to ${projectId}.`),
                      },
                      'Add',
                    ),
                    'ADMIN',
                  ),
            ),
          ),
        ),
      ),
    )
  }

  /** @param {ProjectEnvironment} environment */
  async function remove(environment) {
    const sure = await confirmDialog({
      title: `Remove ${environment.name} from ${projectId}?`,
      body: `Every flag of ${projectId} loses its state, strategies and variants in ${environment.name}; adding it back starts them off and empty.`,
      confirm: 'Remove environment',
      danger: true,
    })
    if (sure) await run(() => api('DELETE', `${place}/${seg(environment.name)}`), `${environment.name} removed from ${projectId}.`)
  }

  /** @param {() => Promise<unknown>} action @param {string} done */
  async function run(action, done) {
    await runAction(notice, load, action, done)
  }

  void load()
  return section('Environments', notice, body)
}
