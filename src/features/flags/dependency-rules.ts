/**
 * The rules of flag dependencies and batch operations, as pure functions over
 * what the store read (inside the transaction that then writes). Each throws
 * the API error of the first rule broken.
 */
import { invalid, invalidOperation, notFound, quote } from '../../http/errors.ts'
import type { DependencyData } from '../events/event-types.ts'

/** What the rules need to know about a flag. */
export interface FlagState {
  readonly name: string
  readonly project: string
  readonly archived: boolean
}

/** `"a", "b", "c"`, cut after `max` names so a batch of thousands still makes a readable message. */
export function nameList(names: readonly string[], max = 10): string {
  const shown = names
    .slice(0, max)
    .map((name) => quote(name))
    .join(', ')
  return names.length > max ? `${shown} and ${names.length - max} more` : shown
}

export function checkNotSelf(child: string, parent: string): void {
  if (child === parent) {
    throw invalid(
      `The \`/body/feature\` property names the flag itself (${quote(parent)}): a flag cannot depend on itself.`,
      '/body/feature',
    )
  }
}

export interface DependencyCandidate {
  project: string
  childName: string
  parentName: string
  /** The flags of those names, if they exist (in any project or state). */
  child: FlagState | undefined
  parent: FlagState | undefined
  /** The flags that already depend on the child. */
  childChildren: readonly string[]
  /** The flag the parent already depends on, if any. */
  parentParent: string | undefined
}

/**
 * Both flags must be active flags of the project, and dependencies stay one level
 * deep: the child may not be a parent, the parent may not be a child.
 */
export function checkDependency(candidate: DependencyCandidate): void {
  const { project, childName, parentName } = candidate
  if (!isActiveIn(candidate.child, project))
    throw notFound(`There's no active flag named ${quote(childName)} in project ${quote(project)}.`)
  if (!isActiveIn(candidate.parent, project)) {
    throw notFound(`There's no active flag named ${quote(parentName)} in project ${quote(project)} to depend on.`)
  }
  if (candidate.childChildren.length > 0) {
    const verb = candidate.childChildren.length === 1 ? 'depends' : 'depend'
    throw invalidOperation(
      `Flag ${quote(childName)} cannot depend on another flag: ${nameList(candidate.childChildren)} ${verb} on it, and dependencies are only one level deep.`,
    )
  }
  if (candidate.parentParent !== undefined) {
    throw invalidOperation(
      `Flag ${quote(parentName)} cannot be a parent: it depends on ${quote(candidate.parentParent)} itself, and dependencies are only one level deep.`,
    )
  }
}

function isActiveIn(flag: FlagState | undefined, project: string): boolean {
  return flag !== undefined && flag.project === project && !flag.archived
}

/** A disabled dependency keeps no variants; the event echoes `variants` only when they were sent. */
export function dependencyToStore(enabled: boolean | undefined, variants: string[] | undefined): { enabled: boolean; variants: string[] } {
  const isEnabled = enabled ?? true
  return { enabled: isEnabled, variants: isEnabled ? (variants ?? []) : [] }
}

export function dependencyAddedData(parent: string, enabled: boolean, variants: string[] | undefined): DependencyData {
  return variants === undefined ? { feature: parent, enabled } : { feature: parent, enabled, variants }
}

export type BatchOperation = 'archive' | 'revive' | 'delete'

/** Every named flag that exists must belong to the project of the URL. */
export function checkSameProject(operation: BatchOperation, project: string, flags: readonly FlagState[]): void {
  const foreign = flags.filter((flag) => flag.project !== project)
  if (foreign.length === 0) return
  const projects = [...new Set(foreign.map((flag) => flag.project))].sort()
  const many = foreign.length > 1
  throw invalidOperation(
    `Cannot ${operation} ${many ? 'flags' : 'flag'} ${nameList(foreign.map((flag) => flag.name))}: ${many ? 'they belong' : 'it belongs'} to ` +
      `${projects.length > 1 ? 'projects' : 'project'} ${nameList(projects)}, not to project ${quote(project)}. Nothing was changed.`,
  )
}

/** Archiving a parent would orphan the children left outside the batch. */
export function checkNoOrphans(parents: readonly string[]): void {
  if (parents.length === 0) return
  const many = parents.length > 1
  throw invalidOperation(
    `Cannot archive ${many ? 'flags' : 'flag'} ${nameList(parents)}: other flags depend on ${many ? 'them' : 'it'}. ` +
      'Archive those flags in the same batch, or remove their dependencies first. Nothing was changed.',
  )
}
