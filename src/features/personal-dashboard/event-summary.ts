/**
 * One line of markdown about an event, as the reference's personal dashboard words its latest
 * events (its markdown event formatter): who, what, the flag and the project as links. Types it
 * has no sentence for say "triggered"; a strategy's update is told without its parameter changes.
 */
import { createHash } from 'node:crypto'

export interface SummarizedEvent {
  type: string
  createdBy: string
  featureName?: string | null
  project?: string | null
  environment?: string | null
  data?: Record<string, unknown> | null
  preData?: Record<string, unknown> | null
}

const b = (text: unknown) => `**${text ?? ''}**`

/** `base`: Pennon's public address (PUBLIC_URL), '' when unknown: the links are then paths. */
export function summarize(event: SummarizedEvent, base: string): string {
  const { createdBy: user, featureName, project, environment } = event
  const data = event.data ?? undefined
  const preData = event.preData ?? undefined
  const flagPath =
    event.type === 'feature-archived' ? `/projects/${project ?? ''}/archive` : `/projects/${project ?? ''}/features/${featureName}`
  const feature = featureName ? `[${featureName}](${base}${flagPath})` : ''
  const projectLink = project ? `[${project}](${base}/projects/${project})` : ''
  const inProject = `in project ${b(projectLink)}`
  const forEnvironment = `for the ${b(environment)} environment ${inProject}`
  const strategy = [preData?.title, data?.title, preData?.name, data?.name].find(Boolean)
  switch (event.type) {
    case 'feature-created':
      return `${b(user)} created ${b(feature)} ${inProject}`
    case 'feature-archived':
      return `${b(user)} archived ${b(featureName)} ${inProject}`
    case 'feature-deleted':
      return `${b(user)} deleted ${b(featureName)} ${inProject}`
    case 'feature-revived':
      return `${b(user)} revived ${b(feature)} ${inProject}`
    case 'feature-environment-enabled':
      return `${b(user)} enabled ${b(feature)} ${forEnvironment}`
    case 'feature-environment-disabled':
      return `${b(user)} disabled ${b(feature)} ${forEnvironment}`
    case 'feature-environment-variants-updated':
      return `${b(user)} updated variants for ${b(feature)} ${forEnvironment}`
    case 'feature-metadata-updated':
      return `${b(user)} updated ${b(feature)} metadata ${inProject}`
    case 'feature-potentially-stale-on':
      return `${b(feature)} was marked as potentially stale ${inProject}`
    case 'feature-stale-on':
      return `${b(user)} marked ${b(feature)} as stale ${inProject}`
    case 'feature-stale-off':
      return `${b(user)} removed the stale marking on ${b(feature)} ${inProject}`
    case 'feature-strategy-add':
      return `${b(user)} added strategy ${b(strategy)} to ${b(feature)} ${forEnvironment}`
    case 'feature-strategy-remove':
      return `${b(user)} removed strategy ${b(strategy)} from ${b(feature)} ${forEnvironment}`
    case 'feature-strategy-update':
      return `${b(user)} updated ${b(feature)} ${inProject} by updating strategy ${b(strategy)} in ${b(environment)}`
    case 'feature-tagged':
      return `${b(user)} tagged ${b(feature)} with ${b(`${data?.type}:${data?.value}`)} ${inProject}`
    case 'feature-untagged':
      return `${b(user)} untagged ${b(feature)} with ${b(`${preData?.type}:${preData?.value}`)} ${inProject}`
    case 'project-created':
      return `${b(user)} created project ${b(projectLink)}`
    case 'project-deleted':
      return `${b(user)} deleted project ${b(project)}`
    default:
      return `${b(user)} triggered ${b(event.type)}`
  }
}

/** The reference's avatar address for a person: Gravatar's, by their email (else username, else id). */
export function imageUrlOf(person: { email?: string | null; username?: string | null; id?: number }): string {
  let ident = person.email || person.username || String(person.id)
  // As the reference: lower-cased unless it starts with "@".
  ident = ident.indexOf('@') !== 0 ? ident.toLowerCase().trim() : ident.trim()
  return `https://gravatar.com/avatar/${createHash('sha256').update(ident).digest('hex')}?s=42&d=retro&r=g`
}
