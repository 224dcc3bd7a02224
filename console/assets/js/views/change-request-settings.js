// @ts-check
/**
 * A project's change-request settings, per environment: whether changes there need a change
 * request, and how many approvals one needs. Changing them needs PROJECT_CHANGE_REQUEST_WRITE.
 */
import { api, seg } from '../api.js'
import { h, replace } from '../dom.js'
import { link } from '../router.js'
import { can } from '../session.js'
import { badge, errorBox, guard, loading, runAction, section } from '../ui.js'

/** @typedef {{ environment: string, type: string, changeRequestEnabled: boolean, requiredApprovals: number }} Setting */

/**
 * A section that loads itself.
 * @param {string} projectId
 * @param {() => boolean} current
 */
export function changeRequestSettings(projectId, current) {
  const notice = h('div', { 'aria-live': 'polite' })
  const body = h('div', null, loading())

  async function load() {
    /** @type {Setting[]} */
    let settings
    try {
      settings = await api('GET', `/projects/${seg(projectId)}/change-requests/config`)
    } catch (error) {
      if (current()) replace(body, errorBox(error))
      return
    }
    if (current()) replace(body, table(settings))
  }

  /** @param {Setting[]} settings */
  function table(settings) {
    const allowed = can('PROJECT_CHANGE_REQUEST_WRITE')
    return h(
      'table',
      { class: 'table', 'data-change-request-settings': projectId },
      h('caption', { class: 'visually-hidden' }, `Which environments of ${projectId} need change requests`),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          ['Environment', 'Change requests', 'Approvals needed', ''].map((title) => h('th', { scope: 'col' }, title)),
        ),
      ),
      h(
        'tbody',
        null,
        settings.map((setting) => {
          const enabled = h('input', {
            type: 'checkbox',
            checked: setting.changeRequestEnabled,
            disabled: !allowed,
            'aria-label': `Change requests in ${setting.environment}`,
          })
          const approvals = h('input', {
            type: 'number',
            // 0: a request is Approved once its author sends it to review (applied or scheduled by them alone).
            min: 0,
            max: 10,
            step: 1,
            value: String(setting.requiredApprovals),
            disabled: !allowed,
            class: 'narrow',
            'aria-label': `Approvals needed in ${setting.environment}`,
          })
          const save = h(
            'button',
            {
              type: 'button',
              class: 'secondary small',
              'aria-label': `Save change requests of ${setting.environment}`,
              onclick: () =>
                runAction(
                  notice,
                  load,
                  () =>
                    api('PUT', `/projects/${seg(projectId)}/environments/${seg(setting.environment)}/change-requests/config`, {
                      changeRequestsEnabled: enabled.checked,
                      requiredApprovals: Number(approvals.value),
                    }),
                  `Change requests ${enabled.checked ? 'required' : 'not required'} in ${setting.environment}.`,
                ),
            },
            'Save',
          )
          return h(
            'tr',
            { 'data-environment': setting.environment, 'data-required': String(setting.changeRequestEnabled) },
            h('th', { scope: 'row' }, setting.environment, ' ', badge(setting.type)),
            h('td', null, h('label', { class: 'check' }, enabled, setting.changeRequestEnabled ? ' required' : ' not required')),
            h('td', null, approvals),
            h('td', null, guard(save, 'PROJECT_CHANGE_REQUEST_WRITE')),
          )
        }),
      ),
    )
  }

  void load()
  return section(
    'Change requests',
    h('p', null, h('a', { href: link('projects', projectId, 'change-requests') }, 'The change requests of this project')),
    notice,
    body,
  )
}
