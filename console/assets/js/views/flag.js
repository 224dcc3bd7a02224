// @ts-check
/**
 * One flag: its environments as switches, each with its strategies (rollout, constraints,
 * segments, variants; reordered in place) and variants (edited in a dialog); its parent and
 * children; its tags (flag-tags.js) and links (flag-links.js); archive (after reading what the
 * archive would break), revive and delete; its exposure per environment (flag-exposure.js).
 */
import { api, seg } from '../api.js'
import { changeRequestOffer, needsChangeRequest, pendingNotice } from '../change-requests.js'
import { describeConstraint } from '../constraint-editor.js'
import { announce, confirmDialog, field, formatDate, h, replace } from '../dom.js'
import { flagMetadataDialog, lifetimeText } from '../metadata-form.js'
import { link, navigate } from '../router.js'
import { can } from '../session.js'
import { strategyDialog } from '../strategy-form.js'
import { badge, errorBox, guard, loading, pageHeader, section, runAction, toggleSwitch } from '../ui.js'
import { variantsDialog } from '../variant-form.js'
import { exposureSection } from './flag-exposure.js'
import { linkSection } from './flag-links.js'
import { tagSection } from './flag-tags.js'

/** @typedef {import('../variant-form.js').Variant} Variant */
/** @typedef {{ name: string, enabled: boolean, type: string, lastSeenAt?: string | null, strategies: import('../strategy-form.js').Strategy[], variants: Variant[] }} Environment */
/** @typedef {{ name: string, description: string | null, type: string, project: string, stale: boolean, potentiallyStale: boolean, createdAt: string, impressionData: boolean, archived: boolean, archivedAt?: string, environments: Environment[], links: import('./flag-links.js').FlagLink[], dependencies: { feature: string, enabled: boolean, variants: string[] }[], children: string[] }} FlagDetails */

/** @param {import('../router.js').ViewContext} context */
export async function flagView({ main, params, current }) {
  const projectId = params.projectId ?? ''
  const name = params.name ?? ''
  const base = `/projects/${seg(projectId)}/features/${seg(name)}`
  const crumbs = /** @type {[string, string][]} */ ([
    ['Projects', '#/projects'],
    [projectId, link('projects', projectId)],
  ])
  replace(main, pageHeader(name, { crumbs }), loading())
  const notice = h('div', { 'aria-live': 'polite' })

  async function render() {
    /** @type {[FlagDetails, { segments: import('../strategy-form.js').SegmentRef[] }, { strategies: import('../strategy-form.js').Definition[] }, { types: import('../metadata-form.js').FeatureType[] }, { tags: import('./flag-tags.js').FlagTag[] }, { tagTypes: import('./flag-tags.js').TagType[] }, HTMLElement | null]} */
    let loaded
    try {
      loaded = await Promise.all([
        api('GET', base),
        api('GET', '/segments'),
        api('GET', '/strategies'),
        api('GET', '/feature-types'),
        api('GET', `/features/${seg(name)}/tags`),
        api('GET', '/tag-types'),
        pendingNotice(projectId, name),
      ])
    } catch (error) {
      if (current()) replace(main, pageHeader(name, { crumbs }), errorBox(error))
      return
    }
    if (!current()) return
    const [flag, { segments }, { strategies: definitions }, { types }, { tags }, { tagTypes }, pending] = loaded
    const lifetime = types.find((type) => type.id === flag.type)?.lifetimeDays ?? null
    const editMetadata = async () => {
      if (await flagMetadataDialog({ base, flag, types })) {
        announce(`${name} saved.`)
        await render()
      }
    }
    const segmentNames = new Map(segments.map((segment) => [segment.id, segment.name]))
    const actions = flag.archived
      ? [
          guard(
            h(
              'button',
              {
                type: 'button',
                class: 'secondary',
                onclick: () => act(() => api('POST', `/projects/${seg(projectId)}/revive`, { features: [name] }), `${name} revived.`),
              },
              'Revive',
            ),
            'UPDATE_FEATURE',
          ),
          guard(h('button', { type: 'button', class: 'danger', onclick: deleteFlag }, 'Delete'), 'DELETE_FEATURE'),
        ]
      : [
          guard(h('button', { type: 'button', class: 'secondary', onclick: editMetadata }, 'Edit'), 'UPDATE_FEATURE'),
          guard(h('button', { type: 'button', class: 'danger', onclick: () => archiveFlag(flag) }, 'Archive'), 'DELETE_FEATURE'),
        ]
    replace(
      main,
      pageHeader(name, {
        crumbs,
        actions: [
          h('a', { class: 'button secondary', href: link('projects', projectId, 'features', name, 'events') }, 'History'),
          h(
            'a',
            { class: 'button secondary', href: `${link('projects', projectId, 'change-requests')}?feature=${encodeURIComponent(name)}` },
            'Change requests',
          ),
          ...actions,
        ],
        subtitle: flag.description ?? undefined,
      }),
      notice,
      pending,
      flag.archived
        ? h(
            'p',
            { class: 'alert warn' },
            `Archived ${formatDate(flag.archivedAt)}: off everywhere, and SDKs no longer get it. Revive it to use it again.`,
          )
        : null,
      flag.potentiallyStale
        ? h(
            'p',
            { class: 'alert warn', 'data-potentially-stale': '' },
            `Potentially stale: a ${flag.type} flag is expected to live ${lifetimeText(lifetime)}, and this one was created ${formatDate(flag.createdAt)}. `,
            'Mark it stale once its code is gone, or archive it.',
          )
        : null,
      h(
        'div',
        { class: 'grid-2' },
        section(
          'About',
          h(
            'dl',
            { class: 'facts' },
            h('dt', null, 'Type'),
            h('dd', null, badge(flag.type), ` expected lifetime: ${lifetimeText(lifetime)}`),
            h('dt', null, 'Project'),
            h('dd', null, h('a', { href: link('projects', projectId) }, flag.project)),
            h('dt', null, 'Created'),
            h('dd', null, formatDate(flag.createdAt)),
            h('dt', null, 'Stale'),
            h('dd', null, flag.stale ? badge('stale', 'warn') : flag.potentiallyStale ? badge('potentially stale', 'warn') : 'no'),
            h('dt', null, 'Impression data'),
            h('dd', null, flag.impressionData ? 'on' : 'off'),
          ),
        ),
        dependencySection(flag),
      ),
      tagSection({ name, tags, tagTypes, act, reload: render }),
      linkSection({ base, name, links: flag.links ?? [], act, reload: render }),
      section(
        'Environments',
        h(
          'div',
          { class: 'environments' },
          flag.environments.map((environment) => environmentCard(flag, environment, segmentNames, segments, definitions)),
        ),
      ),
      exposureSection(name, flag.environments, current),
    )
  }

  /**
   * @param {() => Promise<unknown>} action
   * @param {string} done
   * @param {import('../change-requests.js').ProposedChange} [change] the change made, to offer as a change request when its environment needs one
   */
  async function act(action, done, change) {
    if (!change) return runAction(notice, render, action, done)
    try {
      await action()
      replace(notice)
      announce(done)
      await render()
    } catch (error) {
      refused(error, change)
    }
  }

  /**
   * A failed change: the error, or where the environment needs change requests, the offer to add it to one.
   * @param {unknown} error
   * @param {import('../change-requests.js').ProposedChange} change
   */
  function refused(error, change) {
    replace(
      notice,
      needsChangeRequest(error)
        ? changeRequestOffer({ error, projectId, feature: name, change, onQueued: () => void render() })
        : errorBox(error),
    )
    notice.scrollIntoView({ block: 'nearest' })
  }

  /**
   * @param {FlagDetails} flag
   * @param {Environment} environment
   * @param {Map<number, string>} segmentNames
   * @param {import('../strategy-form.js').SegmentRef[]} segments
   * @param {import('../strategy-form.js').Definition[]} definitions
   */
  function environmentCard(flag, environment, segmentNames, segments, definitions) {
    const place = `${base}/environments/${seg(environment.name)}`
    const toggle = toggleSwitch({
      label: `${name} in ${environment.name}`,
      checked: environment.enabled,
      onchange: (next) =>
        act(() => api('POST', `${place}/${next ? 'on' : 'off'}`), `${name} is ${next ? 'on' : 'off'} in ${environment.name}.`, {
          environment: environment.name,
          action: 'updateEnabled',
          payload: { enabled: next },
        }),
    })
    if (flag.archived) toggle.disabled = true
    const openEditor = (/** @type {import('../strategy-form.js').Strategy | undefined} */ strategy) => async () => {
      const saved = await strategyDialog({
        place,
        flagName: name,
        project: projectId,
        environment: environment.name,
        strategy,
        definitions,
        segments,
        onRefused: (error, change) => refused(error, { environment: environment.name, ...change }),
      })
      if (saved) {
        announce(`Strategy ${strategy ? 'saved' : 'added'} in ${environment.name}.`)
        await render()
      }
    }
    const editVariants = async () => {
      const saved = await variantsDialog({
        place,
        environment: environment.name,
        variants: environment.variants,
        onRefused: (error, change) => refused(error, { environment: environment.name, ...change }),
      })
      if (saved) {
        announce(`Variants saved in ${environment.name}.`)
        await render()
      }
    }
    return h(
      'article',
      { class: 'environment', 'aria-label': `Environment ${environment.name}`, 'data-environment': environment.name },
      h(
        'div',
        { class: 'environment-head' },
        h('h3', null, environment.name),
        badge(environment.type),
        guard(toggle, 'UPDATE_FEATURE_ENVIRONMENT'),
        environment.enabled && !environment.strategies.some((strategy) => !strategy.disabled) ? badge('no active strategy', 'warn') : null,
      ),
      environment.strategies.length === 0
        ? h('p', { class: 'empty' }, 'No strategies. Switching on adds a 100% gradual rollout.')
        : environment.strategies.map((strategy, index) =>
            strategyCard(
              place,
              environment.name,
              strategy,
              segmentNames,
              openEditor(strategy),
              environment.strategies.length > 1
                ? {
                    up: index > 0 ? moveStrategy(place, environment, index, -1) : null,
                    down: index < environment.strategies.length - 1 ? moveStrategy(place, environment, index, 1) : null,
                  }
                : null,
            ),
          ),
      flag.archived
        ? null
        : guard(
            h(
              'button',
              { type: 'button', class: 'secondary small', onclick: openEditor(undefined) },
              `Add strategy in ${environment.name}`,
            ),
            'CREATE_FEATURE_STRATEGY',
          ),
      environment.variants.length ? h('div', null, h('h4', null, 'Variants'), variantList(environment.variants, true)) : null,
      flag.archived
        ? null
        : guard(
            h('button', { type: 'button', class: 'secondary small', onclick: editVariants }, `Edit variants in ${environment.name}`),
            'UPDATE_FEATURE_ENVIRONMENT_VARIANTS',
          ),
    )
  }

  /**
   * Moves a strategy one place in its environment's evaluation order: every strategy gets its
   * new position as sortOrder, so earlier gaps or ties cannot keep the old order.
   * @param {string} place
   * @param {Environment} environment
   * @param {number} index
   * @param {-1 | 1} by
   */
  function moveStrategy(place, environment, index, by) {
    return async () => {
      const ids = environment.strategies.map((strategy) => strategy.id)
      const [moved = ''] = ids.splice(index, 1)
      ids.splice(index + by, 0, moved)
      const strategy = environment.strategies[index]
      const label = strategy ? strategyLabel(strategy) : moved
      await act(
        () =>
          api(
            'POST',
            `${place}/strategies/set-sort-order`,
            ids.map((id, sortOrder) => ({ id, sortOrder })),
          ),
        `Strategy ${label} moved ${by < 0 ? 'up' : 'down'} in ${environment.name}.`,
        { environment: environment.name, action: 'reorderStrategy', payload: ids.map((id, sortOrder) => ({ id, sortOrder })) },
      )
      // The page was rebuilt: keep the keyboard on the moved strategy's buttons.
      const buttons = [...main.querySelectorAll(`[data-strategy="${CSS.escape(moved)}"] button.move`)]
      const next =
        buttons.find(
          (button) => button instanceof HTMLButtonElement && !button.disabled && button.dataset.direction === (by < 0 ? 'up' : 'down'),
        ) ?? buttons.find((button) => button instanceof HTMLButtonElement && !button.disabled)
      if (next instanceof HTMLElement) next.focus()
    }
  }

  /**
   * @param {string} place
   * @param {string} environment
   * @param {import('../strategy-form.js').Strategy} strategy
   * @param {Map<number, string>} segmentNames
   * @param {() => void} edit
   * @param {{ up: (() => Promise<void>) | null, down: (() => Promise<void>) | null } | null} moves null: the only strategy there
   */
  function strategyCard(place, environment, strategy, segmentNames, edit, moves) {
    const rollout = strategy.name === 'flexibleRollout' ? Number(strategy.parameters.rollout ?? '100') : null
    const label = strategyLabel(strategy)
    /** @param {'up' | 'down'} direction */
    const moveButton = (direction) => {
      const move = moves?.[direction]
      return guard(
        h(
          'button',
          {
            type: 'button',
            class: 'secondary small move',
            'data-direction': direction,
            disabled: !move,
            onclick: move,
            'aria-label': `Move strategy ${label} ${direction} in ${environment}`,
          },
          direction === 'up' ? 'Move up' : 'Move down',
        ),
        'UPDATE_FEATURE_STRATEGY',
      )
    }
    return h(
      'div',
      { class: `strategy${strategy.disabled ? ' paused' : ''}`, 'data-strategy': strategy.id },
      h(
        'div',
        { class: 'strategy-head' },
        h('strong', null, label),
        strategy.title ? h('span', { class: 'hint' }, strategy.name) : null,
        strategy.disabled ? badge('paused', 'warn') : null,
        rollout === null
          ? null
          : h(
              'span',
              { class: 'rollout' },
              h('meter', { min: 0, max: 100, value: rollout, 'aria-label': 'Rollout' }),
              ` ${rollout}% of ${strategy.parameters.stickiness ?? 'default'}`,
              h('span', { class: 'hint' }, ` · group ${strategy.parameters.groupId ?? ''}`),
            ),
        h(
          'span',
          { class: 'row-actions' },
          moves ? [moveButton('up'), moveButton('down')] : null,
          guard(
            h(
              'button',
              { type: 'button', class: 'secondary small', onclick: edit, 'aria-label': `Edit strategy ${label} in ${environment}` },
              'Edit',
            ),
            'UPDATE_FEATURE_STRATEGY',
          ),
          guard(
            h(
              'button',
              {
                type: 'button',
                class: 'link danger',
                'aria-label': `Remove strategy ${label} in ${environment}`,
                onclick: async () => {
                  const sure = await confirmDialog({
                    title: `Remove ${label} from ${environment}?`,
                    body: 'If it was the last active strategy, the flag is switched off there.',
                    confirm: 'Remove',
                    danger: true,
                  })
                  if (sure)
                    await act(() => api('DELETE', `${place}/strategies/${seg(strategy.id)}`), `Strategy removed from ${environment}.`, {
                      environment,
                      action: 'deleteStrategy',
                      payload: { id: strategy.id },
                    })
                },
              },
              'Remove',
            ),
            'DELETE_FEATURE_STRATEGY',
          ),
        ),
      ),
      rollout === null && Object.keys(strategy.parameters).length
        ? h(
            'ul',
            null,
            Object.entries(strategy.parameters).map(([key, value]) => h('li', null, h('code', null, key), `: ${value}`)),
          )
        : null,
      strategy.segments.length
        ? h(
            'p',
            null,
            'Segments: ',
            strategy.segments.map((id, index) => [
              index ? ', ' : '',
              h('a', { href: `#/segments/${id}` }, segmentNames.get(id) ?? `#${id}`),
            ]),
          )
        : null,
      strategy.constraints.length
        ? h(
            'div',
            null,
            'Constraints:',
            h(
              'ul',
              { class: 'constraint-list' },
              strategy.constraints.map((constraint) => h('li', null, h('code', null, describeConstraint(constraint)))),
            ),
          )
        : null,
      strategy.variants.length ? h('div', null, 'Variants:', variantList(/** @type {Variant[]} */ (strategy.variants))) : null,
    )
  }

  /** @param {FlagDetails} flag */
  function dependencySection(flag) {
    const parent = flag.dependencies[0]
    const parentPart = parent
      ? h(
          'p',
          null,
          'Depends on ',
          h('a', { href: link('projects', projectId, 'features', parent.feature) }, parent.feature),
          parent.enabled ? ' being on' : ' being off',
          parent.variants.length ? ` with variant ${parent.variants.join(' or ')}` : '',
          ' ',
          guard(
            h(
              'button',
              {
                type: 'button',
                class: 'link danger',
                onclick: () =>
                  act(() => api('DELETE', `${base}/dependencies/${seg(parent.feature)}`), `Dependency on ${parent.feature} removed.`),
              },
              'Remove',
            ),
            'UPDATE_FEATURE_DEPENDENCY',
          ),
        )
      : h('p', { class: 'empty' }, 'No parent.')
    const children = flag.children.length
      ? h(
          'p',
          null,
          'Children: ',
          flag.children.map((child, index) => [index ? ', ' : '', h('a', { href: link('projects', projectId, 'features', child) }, child)]),
        )
      : h('p', { class: 'empty' }, 'No children.')
    const allowed = can('UPDATE_FEATURE_DEPENDENCY')
    const picker = h('select', { name: 'parent', disabled: !allowed }, h('option', { value: '' }, 'Choose a parent…'))
    const requireOn = h('input', { type: 'checkbox', checked: true, disabled: !allowed })
    const add = h(
      'form',
      { class: 'actions' },
      field('New parent', picker),
      h('label', { class: 'check' }, requireOn, ' only while the parent is on'),
      guard(h('button', { type: 'submit', class: 'secondary small' }, 'Set parent'), 'UPDATE_FEATURE_DEPENDENCY'),
    )
    add.addEventListener('submit', (event) => {
      event.preventDefault()
      if (picker.value)
        void act(
          () => api('POST', `${base}/dependencies`, { feature: picker.value, enabled: requireOn.checked }),
          `${name} now depends on ${picker.value}.`,
        )
    })
    // A child cannot be a parent, and a parent cannot be a child (one level): offered only when possible.
    if (!flag.archived && flag.children.length === 0 && allowed) {
      api('GET', `${base}/parents`)
        .then((/** @type {string[]} */ names) => {
          picker.append(...names.map((candidate) => h('option', { value: candidate }, candidate)))
        })
        .catch(() => {})
    }
    return section('Dependencies', parentPart, children, flag.archived || flag.children.length ? null : add)
  }

  /** @param {FlagDetails} flag */
  async function archiveFlag(flag) {
    /** @type {{ parentsWithChildFeatures: string[], hasDeletedDependencies: boolean }} */
    let check
    try {
      check = await api('POST', `/projects/${seg(projectId)}/archive/validate`, { features: [name] })
    } catch (error) {
      replace(notice, errorBox(error))
      return
    }
    const orphans = check.parentsWithChildFeatures.includes(name) ? flag.children : []
    const goes = [
      ...flag.dependencies.map((dependency) => `${name} → ${dependency.feature}`),
      ...orphans.map((child) => `${child} → ${name}`),
    ]
    const body = h(
      'div',
      null,
      orphans.length
        ? h(
            'div',
            { class: 'alert warn', role: 'alert' },
            h('p', null, h('strong', null, `${name} is the parent of ${orphans.join(', ')}.`)),
            h(
              'p',
              null,
              `Archived alone it would orphan ${orphans.length === 1 ? 'that child' : 'those children'}, so Pennon refuses it. You can archive them together:`,
            ),
            h(
              'ul',
              null,
              [name, ...orphans].map((item) => h('li', null, item)),
            ),
          )
        : h('p', null, 'Archiving switches it off in every environment; SDKs stop getting it. Its strategies stay, for a revive.'),
      check.hasDeletedDependencies
        ? h(
            'div',
            { class: 'alert info' },
            h('p', null, 'These dependencies go, and are not restored by a revive:'),
            h(
              'ul',
              null,
              goes.map((item) => h('li', null, item)),
            ),
          )
        : null,
    )
    const confirmed = await confirmDialog({
      title: `Archive ${name}?`,
      body,
      confirm: orphans.length ? `Archive with ${orphans.length} ${orphans.length === 1 ? 'child' : 'children'}` : 'Archive',
      danger: true,
    })
    if (!confirmed) return
    await act(
      () => (orphans.length ? api('POST', `/projects/${seg(projectId)}/archive`, { features: [name, ...orphans] }) : api('DELETE', base)),
      `${name} archived.`,
    )
  }

  async function deleteFlag() {
    const sure = await confirmDialog({
      title: `Delete ${name} for good?`,
      body: 'The flag and its strategies are removed; its events stay in the log.',
      confirm: 'Delete flag',
      danger: true,
    })
    if (!sure) return
    try {
      await api('POST', `/projects/${seg(projectId)}/delete`, { features: [name] })
      announce(`${name} deleted.`)
      navigate(link('projects', projectId))
    } catch (error) {
      replace(notice, errorBox(error))
    }
  }

  await render()
}

/** @param {import('../strategy-form.js').Strategy} strategy */
function strategyLabel(strategy) {
  return strategy.title || strategy.name
}

/**
 * @param {Variant[]} variants
 * @param {boolean} [withOverrides] environment variants have overrides; strategy variants none
 */
function variantList(variants, withOverrides = false) {
  return h(
    'table',
    { class: 'table compact' },
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        ['Variant', 'Weight', 'Stickiness', 'Payload', withOverrides ? 'Overrides' : '']
          .filter(Boolean)
          .map((title) => h('th', { scope: 'col' }, title)),
      ),
    ),
    h(
      'tbody',
      null,
      variants.map((variant) =>
        h(
          'tr',
          null,
          h('th', { scope: 'row' }, variant.name),
          h('td', null, `${(variant.weight / 10).toFixed(1)}%${variant.weightType === 'fix' ? ' (fixed)' : ''}`),
          h('td', null, variant.stickiness),
          h('td', null, variant.payload ? h('code', null, `${variant.payload.type}: ${variant.payload.value}`) : '–'),
          withOverrides
            ? h(
                'td',
                null,
                variant.overrides?.length
                  ? variant.overrides.map((override) => `${override.contextName}: ${override.values.join(', ')}`).join('; ')
                  : '–',
              )
            : null,
        ),
      ),
    ),
  )
}
