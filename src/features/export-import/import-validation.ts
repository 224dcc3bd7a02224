/**
 * What the reference's validate answers about an import, and the refusals of the import itself:
 * the same checks, messages and lists (docs/api.md, "Export and import"). All read in a few queries
 * over the batch; `findings` is pure over what they read.
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { AppError, forbidden } from '../../http/errors.ts'
import { missingPermissions, type Permission, type Principal } from '../../http/permissions.ts'
import { createContextFieldStore } from '../context-fields/context-field-store.ts'
import type { ContextField } from '../context-fields/context-field-store.ts'
import { createTagTypeStore } from '../tags/tag-type-store.ts'
import type { Flag } from '../flags/flag-store.ts'
import type { ImportBody, ValidateItem, ValidateResult } from './export-import-schemas.ts'
import { createExportImportStore } from './export-import-store.ts'

/** The reference's display names of the permissions an import may need. */
const DISPLAY_NAMES: Partial<Record<Permission, string>> = {
  UPDATE_FEATURE: 'Update feature flags',
  CREATE_FEATURE: 'Create feature flags',
  CREATE_TAG_TYPE: 'Create tag types',
  CREATE_CONTEXT_FIELD: 'Create context fields',
  DELETE_FEATURE_STRATEGY: 'Delete activation strategies',
  CREATE_FEATURE_STRATEGY: 'Create activation strategies',
  UPDATE_FEATURE_ENVIRONMENT_VARIANTS: 'Update variants',
}

/** What the target holds that the checks look at. */
export interface Target {
  /** The file's flags that exist here, in any project, archived or not (by name). */
  flags: Flag[]
  /** The file's dependency parents that exist here. */
  parents: Set<string>
  definitions: Map<string, { editable: boolean }>
  fields: Map<string, ContextField>
  segments: Array<{ id: number; name: string; project: string | null }>
  tagTypes: Set<string>
  strategiesExist: boolean
}

export async function readTarget(db: Kysely<Database>, { project, environment, data }: ImportBody): Promise<Target> {
  const store = createExportImportStore(db)
  const names = [...new Set(data.features.map((feature) => feature.name))]
  const parents = [...new Set((data.dependencies ?? []).flatMap((dependency) => dependency.dependencies.map((parent) => parent.feature)))]
  const [flags, found, definitions, fields, segments, tagTypes, strategiesExist] = await Promise.all([
    store.flagsNamed(names),
    store.flagsNamed(parents),
    store.strategyDefinitions(),
    createContextFieldStore(db).list({ project: 'any' }),
    store.segments(),
    createTagTypeStore(db).list(),
    // Only the flags of this project lose strategies here.
    store.anyStrategy(names, environment),
  ])
  return {
    flags,
    parents: new Set(found.map((flag) => flag.name)),
    definitions: new Map(definitions.map((definition) => [definition.name, definition])),
    fields: new Map(fields.map((field) => [field.name, field])),
    segments,
    tagTypes: new Set(tagTypes.map((tagType) => tagType.name)),
    strategiesExist: strategiesExist && flags.some((flag) => flag.project === project),
  }
}

export interface Findings {
  unsupportedStrategies: string[]
  customStrategies: string[]
  unsupportedFields: string[]
  otherProject: string[]
  duplicates: string[]
  unknownSegments: string[]
  missingParents: string[]
  archived: string[]
  existing: string[]
  newTagTypes: string[]
  newFields: string[]
  permissions: string[]
}

export function findings({ project, data }: ImportBody, target: Target, actor: Principal): Findings {
  const names = data.features.map((feature) => feature.name)
  const seen = new Set<string>()
  const duplicates = new Set<string>()
  for (const name of names) (seen.has(name) ? duplicates : seen).add(name)
  const strategyNames = data.featureStrategies.map((strategy) => strategy.name)
  const unsupportedFields = (data.contextFields ?? []).filter((field) => {
    const existing = target.fields.get(field.name)
    if (!existing) return false
    const legal = new Set(existing.legalValues.map((legalValue) => legalValue.value))
    return (
      !(field.legalValues ?? []).every((legalValue) => legal.has(legalValue.value)) ||
      (existing.project !== undefined && existing.project !== project)
    )
  })
  const imported = new Set(names)
  const newTagTypes = [...new Set((data.tagTypes ?? []).map((tagType) => tagType.name))].filter((name) => !target.tagTypes.has(name))
  const newFields = (data.contextFields ?? []).filter((field) => !target.fields.has(field.name)).map((field) => field.name)
  const existingAnywhere = new Set(target.flags.map((flag) => flag.name))

  const needed: Permission[] = ['UPDATE_FEATURE']
  if (newTagTypes.length > 0) needed.push('CREATE_TAG_TYPE')
  if (newFields.length > 0) needed.push('CREATE_CONTEXT_FIELD')
  if (target.strategiesExist) needed.push('DELETE_FEATURE_STRATEGY')
  if (data.featureStrategies.length > 0) needed.push('CREATE_FEATURE_STRATEGY')
  if ((data.featureEnvironments ?? []).some((environment) => (environment.variants ?? []).length > 0))
    needed.push('UPDATE_FEATURE_ENVIRONMENT_VARIANTS')
  if (names.some((name) => !existingAnywhere.has(name))) needed.push('CREATE_FEATURE')

  return {
    unsupportedStrategies: strategyNames.filter((name) => !target.definitions.has(name)),
    customStrategies: [...new Set(strategyNames)].filter((name) => target.definitions.get(name)?.editable === true),
    unsupportedFields: unsupportedFields.map((field) => field.name),
    otherProject: target.flags.filter((flag) => flag.project !== project).map((flag) => `${flag.name} (in project ${flag.project})`),
    duplicates: [...duplicates],
    unknownSegments: (data.segments ?? [])
      .filter(
        (segment) =>
          !target.segments.some(
            (existing) => existing.name === segment.name && (existing.project === null || existing.project === project),
          ),
      )
      .map((segment) => segment.name),
    missingParents: (data.dependencies ?? [])
      .flatMap((dependency) => dependency.dependencies.map((parent) => parent.feature))
      .filter((parent) => !imported.has(parent) && !target.parents.has(parent)),
    archived: target.flags.filter((flag) => flag.archived).map((flag) => flag.name),
    existing: target.flags.filter((flag) => flag.project === project && !flag.archived).map((flag) => flag.name),
    newTagTypes,
    newFields,
    permissions: needed.filter((permission) => missingPermissions(actor, permission) !== null),
  }
}

const item = (message: string, affectedItems: string[]): ValidateItem[] => (affectedItems.length > 0 ? [{ message, affectedItems }] : [])

/** The validate answer, in the reference's words and order. */
export function validateAnswer(project: string, found: Findings): ValidateResult {
  return {
    errors: [
      ...item('We detected the following custom strategy that needs to be created first:', found.unsupportedStrategies),
      ...item(
        'We detected the following context fields that do not have matching legal values with the imported ones:',
        found.unsupportedFields,
      ),
      ...item(
        `You cannot import a features that already exist in other projects. You already have the following features defined outside of project ${project}:`,
        found.otherProject,
      ),
      ...item('We detected the following features are duplicate in your import data:', found.duplicates),
      ...item('We detected the following segments that need to be created first:', found.unknownSegments),
      ...item('We detected the following dependencies that need to be created first:', found.missingParents),
    ],
    warnings: [
      ...item(
        'The following strategy types will be used in import. Please make sure the strategy type parameters are configured as in source environment:',
        found.customStrategies,
      ),
      ...item(
        'The following features will not be imported as they are currently archived. To import them, please unarchive them first:',
        found.archived,
      ),
      ...item('The following features already exist in this project and will be overwritten:', found.existing),
    ],
    permissions: item(
      'We detected you are missing the following permissions:',
      found.permissions.map((permission) => DISPLAY_NAMES[permission as Permission] ?? permission),
    ),
  }
}

/**
 * An import's refusal met by validate's trial of it (import-service.ts), as validate lists an
 * error: the import's message, and each of its details, placed in the file where it has a place.
 */
export function refusalItem(error: AppError): ValidateItem {
  const details = error.details ?? [{ message: error.message }]
  return {
    message: error.message,
    affectedItems: details.map((detail) => (detail.path === undefined ? detail.message : `${detail.path}: ${detail.message}`)),
  }
}

const refused = (message: string, items: string[]): AppError =>
  new AppError(400, 'ValidationError', message, { details: items.map((text) => ({ message: text })) })

/** The import's refusals, in the reference's order: the first that applies. */
export function checkImport(found: Findings): void {
  if (found.unsupportedStrategies.length > 0) {
    throw refused(
      'Some of the strategies you are trying to import are not supported.',
      found.unsupportedStrategies.map((name) => `${name} is not supported.`),
    )
  }
  if (found.unsupportedFields.length > 0) {
    throw refused(
      'Some of the context fields you are trying to import are not supported.',
      found.unsupportedFields.map((name) => `${name} is not supported.`),
    )
  }
  if (found.permissions.length > 0) {
    throw forbidden(
      `You don't have the required permissions to import: ${found.permissions.map((permission) => `"${permission}"`).join(', ')}.`,
      found.permissions,
    )
  }
  if (found.otherProject.length > 0)
    throw refused(`These features exist already in other projects: ${found.otherProject.join(', ')}`, found.otherProject)
  // The reference lets a duplicate through to fail on its second create; refused here instead.
  if (found.duplicates.length > 0)
    throw refused(`These features are listed more than once: ${found.duplicates.join(', ')}`, found.duplicates)
  if (found.unknownSegments.length > 0) throw refused(`Unsupported segments: ${found.unknownSegments.join(', ')}`, found.unknownSegments)
  if (found.missingParents.length > 0)
    throw refused(`The following dependent features are missing: ${found.missingParents.join(', ')}`, found.missingParents)
}
