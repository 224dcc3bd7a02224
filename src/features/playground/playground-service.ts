/**
 * The playground: "why is this flag on (or off) for this context?". A thin layer over the
 * evaluation the SDKs' APIs use: an environment's flags are read as the client API serves them
 * (plus each strategy's id and title, and the disabled strategies, marked), scoped to the projects
 * asked as a frontend token of those projects is scoped, and compiled by `createEvaluator` in
 * explain mode. Each flag's `isEnabled` and variant are the evaluator's, and its explanation
 * comes from the very predicates, hashes and variant choices that decided them.
 *
 * Bounds, per request (`limits`, from the configuration): at most `maxEvaluations` evaluations
 * (flags × environments × context combinations) and as many combinations; REGEX work per context
 * as the frontend API, and in total; and an answer of at most `maxAnswerCharacters`, counted as it
 * is evaluated.
 */
import { Readable } from 'node:stream'
import type { Kysely } from 'kysely'
import type { ChangeWatch } from '../../db/change-watch.ts'
import type { Database } from '../../db/tables.ts'
import { exceedsLimit, invalid, validationFailed, type ErrorDetail } from '../../http/errors.ts'
import type { ClientFeaturesService } from '../client-api/client-features-service.ts'
import type { ClientFeature, ClientSegment } from '../client-api/client-features-store.ts'
import { createEvaluator, type ExplainingEvaluator } from '../evaluation/evaluate.ts'
import type { FeatureExplanation } from '../evaluation/explain.ts'
import { MAX_REGEX_WORK } from '../evaluation/regex.ts'
import { contextCombinations, evaluationContext, flatEvaluationContext } from './playground-context.ts'
import type { AdvancedPlaygroundBody, PlaygroundBody } from './playground-schemas.ts'
import { existingEnvironments, existingProjects } from './playground-store.ts'
import { featureJson, featureView } from './playground-view.ts'

/** REGEX work of one request, all its contexts together: twenty contexts at the frontend API's limit each. */
export const MAX_REQUEST_REGEX_WORK = 20 * MAX_REGEX_WORK

export interface PlaygroundLimits {
  /** Evaluations (environments × flags × context combinations) of one request; the reference's is 15,000. */
  maxEvaluations: number
  /** The longest answer, in characters of JSON: explanations repeat a flag's definition per context. */
  maxAnswerCharacters: number
}

const ALL = '*'
// Compiled evaluators kept: a few environment and project choices, each until the flags change.
const MAX_PREPARED = 16

interface Prepared {
  /** The flags of the projects asked, by name. */
  features: ClientFeature[]
  segments: ReadonlyMap<number, ClientSegment>
  evaluator: ExplainingEvaluator
}

export function createPlaygroundService({
  db,
  changes,
  clientFeatures,
  limits,
}: {
  db: Kysely<Database>
  changes: ChangeWatch
  clientFeatures: ClientFeaturesService
  limits: PlaygroundLimits
}) {
  const { maxEvaluations, maxAnswerCharacters } = limits
  const prepared = new Map<string, { version: number; entry: Promise<Prepared> }>()

  /** The explaining evaluator of an environment's flags in some projects, at the current flags version. */
  function prepare(environment: string, projects: readonly string[]): Promise<Prepared> {
    const key = JSON.stringify([environment, projects])
    const version = changes.version('flags')
    const known = prepared.get(key)
    if (version !== undefined && known?.version === version) return known.entry
    const entry = clientFeatures.explainedFlags(environment).then((flags) => {
      // The frontend API's scoping, so the flags evaluated together are those a frontend token of these projects reads.
      const features = clientFeatures.visible(flags, { environment, projects })
      return {
        features,
        segments: flags.segments,
        evaluator: createEvaluator({ features, segments: [...flags.segments.values()] }, { explain: true }),
      }
    })
    if (version !== undefined) {
      const kept = { version, entry }
      prepared.delete(key)
      prepared.set(key, kept)
      if (prepared.size > MAX_PREPARED) prepared.delete(prepared.keys().next().value as string)
      // A failed read, or one a write overtook, is not kept.
      entry.then(
        () => changes.version('flags') !== version && prepared.get(key) === kept && prepared.delete(key),
        () => prepared.get(key) === kept && prepared.delete(key),
      )
    }
    return entry
  }

  /** Unknown environments and projects are refused, naming each (the reference would answer every flag off, or none). */
  async function checkScope(
    environments: ReadonlyArray<{ name: string; path: string }>,
    projects: PlaygroundBody['projects'],
  ): Promise<void> {
    const askedProjects = Array.isArray(projects) ? projects.filter((project) => project !== ALL) : []
    const [knownEnvironments, knownProjects] = await Promise.all([
      existingEnvironments(
        db,
        environments.map(({ name }) => name),
      ),
      existingProjects(db, askedProjects),
    ])
    const details: ErrorDetail[] = []
    for (const { name, path } of environments) {
      if (!knownEnvironments.has(name))
        details.push({
          path,
          message: `The \`${path}\` property must be the name of an existing environment. Environment ${quoteName(name)} does not exist.`,
        })
    }
    if (Array.isArray(projects)) {
      projects.forEach((project, index) => {
        const path = `/body/projects/${index}`
        if (project !== ALL && !knownProjects.has(project))
          details.push({
            path,
            message: `The \`${path}\` property must be the id of an existing project. Project ${quoteName(project)} does not exist.`,
          })
      })
    }
    if (details.length > 0) throw validationFailed(details)
  }

  return {
    /** `POST /playground`: every flag of the projects in one environment, for one context, as JSON. */
    async evaluate(body: PlaygroundBody): Promise<Buffer> {
      await checkScope([{ name: body.environment, path: '/body/environment' }], body.projects)
      const { features, segments, evaluator } = await prepare(body.environment, projectsOf(body.projects))
      const context = evaluationContext(body.context)
      checkRegexWork(evaluator.regexWork(context))
      const answer = answerWriter(maxAnswerCharacters)
      answer.write(`{"input":${JSON.stringify(body)},"features":[`)
      const explanations = byName(evaluator.explainAll(context))
      for (const [index, feature] of features.entries()) {
        answer.write(
          `${index > 0 ? ',' : ''}${featureJson(featureView(feature, explanations.get(feature.name)!, segments, body.environment))}`,
        )
      }
      answer.write(']}')
      return answer.bytes()
    },

    /**
     * `POST /playground/advanced`: every flag of the projects in each environment, for every
     * combination of the context's comma-separated values, as JSON (grouped by flag, then
     * environment, as the reference groups them).
     */
    async evaluateAdvanced(body: AdvancedPlaygroundBody): Promise<Readable> {
      const environments = [...new Set(body.environments)]
      await checkScope(
        environments.map((name) => ({ name, path: `/body/environments/${body.environments.indexOf(name)}` })),
        body.projects,
      )
      const combinations = contextCombinations(body.context)
      if (combinations.count > maxEvaluations) throw tooManyCombinations(combinations.count, maxEvaluations)
      const scopes = await Promise.all(environments.map((environment) => prepare(environment, projectsOf(body.projects))))
      const flags = scopes.reduce((sum, scope) => sum + scope.features.length, 0)
      const evaluations = flags * combinations.count
      if (evaluations > maxEvaluations) {
        throw tooManyEvaluations(evaluations, environments.length, scopes[0]?.features.length ?? 0, combinations.count, maxEvaluations)
      }

      const contexts = combinations.generate().map((flat) => ({ flat, context: flatEvaluationContext(flat) }))
      let work = 0
      for (const { evaluator } of scopes) {
        for (const { context } of contexts) work += checkRegexWork(evaluator.regexWork(context))
      }
      if (work > MAX_REQUEST_REGEX_WORK) throw requestRegexWorkTooLarge(work)

      // Per flag, per environment: the bytes of each context's entry, in the order evaluated.
      const entries = new Map<string, { projectId: string; environments: Map<string, Buffer[]> }>()
      const answer = answerWriter(maxAnswerCharacters)
      environments.forEach((environment, index) => {
        const { features, segments, evaluator } = scopes[index]!
        for (const { flat, context } of contexts) {
          const explanations = byName(evaluator.explainAll(context))
          for (const feature of features) {
            const view = featureView(feature, explanations.get(feature.name)!, segments, environment)
            const bytes = answer.encode(featureJson(view, { context: flat, environment }))
            let entry = entries.get(feature.name)
            if (entry === undefined) entries.set(feature.name, (entry = { projectId: feature.project, environments: new Map() }))
            let list = entry.environments.get(environment)
            if (list === undefined) entry.environments.set(environment, (list = []))
            list.push(bytes)
          }
        }
      })
      // The answer's pieces in the reference's grouping (flag, then environment), joined once as bytes.
      answer.write('{"features":[')
      let firstFeature = true
      for (const [name, { projectId, environments: lists }] of entries) {
        answer.write(`${firstFeature ? '' : ','}{"name":${JSON.stringify(name)},"projectId":${JSON.stringify(projectId)},"environments":{`)
        firstFeature = false
        let firstEnvironment = true
        for (const [environment, list] of lists) {
          answer.write(`${firstEnvironment ? '' : ','}${JSON.stringify(environment)}:[`)
          firstEnvironment = false
          list.forEach((bytes, k) => {
            if (k > 0) answer.comma()
            answer.append(bytes)
          })
          answer.write(']')
        }
        answer.write('}}')
      }
      const { invalidContextProperties } = combinations
      const warnings = invalidContextProperties.length > 0 ? `,"warnings":${JSON.stringify({ invalidContextProperties })}` : ''
      answer.write(`],"input":${JSON.stringify(body)}${warnings}}`)
      return answer.stream()
    },
  }
}

export type PlaygroundService = ReturnType<typeof createPlaygroundService>

const projectsOf = (projects: PlaygroundBody['projects']): readonly string[] =>
  projects === undefined || projects === ALL ? [ALL] : projects

const byName = (explanations: FeatureExplanation[]) => new Map(explanations.map((explanation) => [explanation.name, explanation]))

const quoteName = (name: string) => JSON.stringify(name.length > 100 ? `${name.slice(0, 100)}…` : name)

const COMMA = Buffer.from(',')
const EMPTY = Buffer.alloc(0)
const CHUNK = 64 * 1024

/**
 * The answer, counted as it is made: past `maxCharacters` the request is refused before more is
 * evaluated. Kept as bytes, each piece encoded as it comes, and joined once: one string of a few
 * MB, joined and then encoded, cost several times more (bench/playground.ts).
 */
function answerWriter(maxCharacters: number) {
  const pieces: Buffer[] = []
  let characters = 0
  let length = 0
  const count = (more: number): void => {
    characters += more
    if (characters > maxCharacters) {
      throw exceedsLimit(
        `The answer would be longer than ${maxCharacters} characters: each flag's explanation repeats its strategies, constraints and segments for every context. Ask for fewer environments, projects or context values.`,
      )
    }
  }
  /** The piece's bytes, counted; not yet part of the answer (the advanced playground places them later). */
  const encode = (text: string): Buffer => {
    count(text.length)
    return Buffer.from(text)
  }
  const append = (bytes: Buffer): void => {
    pieces.push(bytes)
    length += bytes.length
  }
  return {
    encode,
    append,
    write: (text: string) => append(encode(text)),
    comma: () => {
      count(1)
      append(COMMA)
    },
    bytes: () => Buffer.concat(pieces, length),
    /**
     * The answer as a stream of 64 KiB chunks, each piece let go once sent: an advanced answer may
     * be hundreds of MB, and joining it would hold it twice.
     */
    stream: () =>
      Readable.from(
        (function* () {
          let group: Buffer[] = []
          let size = 0
          for (let i = 0; i < pieces.length; i++) {
            group.push(pieces[i]!)
            size += pieces[i]!.length
            pieces[i] = EMPTY
            if (size >= CHUNK) {
              yield Buffer.concat(group, size)
              group = []
              size = 0
            }
          }
          if (size > 0) yield Buffer.concat(group, size)
        })(),
      ),
  }
}

function checkRegexWork(work: number): number {
  if (work > MAX_REGEX_WORK) {
    throw invalid(
      `The context's values are too long for this instance's REGEX constraints: matching them would cost ${work} units of work ` +
        `(each value's length times the program size of the patterns on its field), more than the limit of ${MAX_REGEX_WORK} per context. Send shorter values.`,
    )
  }
  return work
}

const requestRegexWorkTooLarge = (work: number) =>
  exceedsLimit(
    `Matching this instance's REGEX constraints for every context combination would cost ${work} units of work, more than the limit of ${MAX_REQUEST_REGEX_WORK} per request. Send fewer or shorter values.`,
  )

const tooManyCombinations = (count: number, maxEvaluations: number) =>
  exceedsLimit(
    `The context's comma-separated values make ${Number.isSafeInteger(count) ? count : 'more than 9007199254740991'} combinations, more than the limit of ${maxEvaluations}. Send fewer values.`,
  )

const tooManyEvaluations = (evaluations: number, environments: number, flags: number, combinations: number, maxEvaluations: number) =>
  exceedsLimit(
    `This would make ${evaluations} evaluations (${environments} environment${environments === 1 ? '' : 's'} × ${flags} flag${flags === 1 ? '' : 's'} × ${combinations} context combination${combinations === 1 ? '' : 's'}), ` +
      `more than the limit of ${maxEvaluations}. Ask for fewer environments, projects or context values.`,
  )
