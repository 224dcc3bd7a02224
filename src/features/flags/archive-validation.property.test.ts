/**
 * Property tests: random flag graphs and random request sequences, compared with a
 * small model of docs/contract.md §2–§4 written here from the contract's words alone.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { call, onEachDatabase, useTestApp } from '../../../test/test-app.ts'
import {
  addDependency,
  archive,
  assertInvariant,
  createFlag,
  createProject,
  deleteFlags,
  dependencyRows,
  projectPath,
  revive,
  validate,
} from '../../../test/helpers/flags.ts'

const RUNS = 40

/** docs/contract.md §4 in a few lines: B, then the flags of B with a child outside B, then whether any row touches B. */
function modelValidation(
  batch: readonly string[],
  project: string,
  flags: ReadonlyMap<string, { project: string; archived: boolean }>,
  parentOf: ReadonlyMap<string, string>,
): { parentsWithChildFeatures: string[]; hasDeletedDependencies: boolean } {
  const b = new Set(batch.filter((name) => flags.get(name)?.project === project && !flags.get(name)?.archived))
  const orphaning = new Set<string>()
  let touches = false
  for (const [child, parent] of parentOf) {
    if (b.has(parent) && !b.has(child)) orphaning.add(parent)
    if (b.has(parent) || b.has(child)) touches = true
  }
  return { parentsWithChildFeatures: [...orphaning].sort(), hasDeletedDependencies: touches }
}

/** A graph: flags of the project (index → name), foreign flags, attempted links, a batch to archive, batches to validate. */
const scenario = fc.record({
  flags: fc.integer({ min: 1, max: 8 }),
  foreign: fc.integer({ min: 0, max: 3 }),
  links: fc.array(fc.record({ child: fc.nat(10), parent: fc.nat(10), enabled: fc.boolean() }), { maxLength: 10 }),
  archived: fc.array(fc.nat(10), { maxLength: 4 }),
  batches: fc.array(
    fc.array(
      fc.oneof(
        fc.nat(10).map((i) => ({ kind: 'flag' as const, i })),
        fc.nat(3).map((i) => ({ kind: 'ghost' as const, i })),
        fc.nat(10).map((i) => ({ kind: 'upper' as const, i })),
      ),
      { maxLength: 12 },
    ),
    { minLength: 1, maxLength: 5 },
  ),
})

onEachDatabase('archive validation properties', (database) => {
  test(`validate agrees with the model of §4 on random graphs (${RUNS} runs)`, async (t) => {
    const pennon = await useTestApp(t, database)
    let run = 0
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        run++
        const [project, other] = [`r${run}`, `r${run}-other`]
        await createProject(pennon, project)
        await createProject(pennon, other)
        // Indexes beyond the project's flags name foreign flags, then flags that do not exist.
        const names = Array.from({ length: 11 }, (_, i) => `r${run}-f${i}`)
        const flags = new Map<string, { project: string; archived: boolean }>()
        for (let i = 0; i < s.flags + s.foreign; i++) {
          const home = i < s.flags ? project : other
          await createFlag(pennon, names[i]!, home)
          flags.set(names[i]!, { project: home, archived: false })
        }

        const parentOf = new Map<string, string>()
        for (const link of s.links) {
          const [child, parent] = [names[link.child]!, names[link.parent]!]
          const response = await addDependency(pennon, child, { feature: parent, enabled: link.enabled }, project)
          const active = (name: string) => flags.get(name)?.project === project
          const expected =
            child === parent
              ? 400
              : !active(child) || !active(parent)
                ? 404
                : [...parentOf.values()].includes(child) || parentOf.has(parent)
                  ? 409
                  : 200
          assert.equal(response.status, expected, `${child} → ${parent}: ${response.text}`)
          if (expected === 200) parentOf.set(child, parent)
        }

        const toArchive = s.archived.map((i) => names[i]!)
        const archived = await archive(pennon, toArchive, project)
        const batch = new Set(toArchive.filter((name) => flags.get(name)?.project === project))
        const foreignNamed = toArchive.some((name) => flags.get(name) !== undefined && flags.get(name)!.project !== project)
        const orphans = [...parentOf].some(([child, parent]) => batch.has(parent) && !batch.has(child))
        assert.equal(archived.status, foreignNamed || orphans ? 409 : 202, archived.text)
        if (archived.status === 202) {
          for (const name of batch) {
            flags.get(name)!.archived = true
            parentOf.delete(name)
          }
        }

        for (const items of s.batches) {
          const features = items.map((item) =>
            item.kind === 'ghost' ? `r${run}-ghost${item.i}` : item.kind === 'upper' ? names[item.i]!.toUpperCase() : names[item.i]!,
          )
          const response = await validate(pennon, features, project)
          assert.equal(response.status, 200)
          assert.deepEqual(response.body, modelValidation(features, project, flags, parentOf), JSON.stringify(features))
        }
      }),
      { numRuns: RUNS },
    )
    await assertInvariant(pennon)
  })

  test(`the invariant of §2 holds after any sequence of requests (${RUNS} runs)`, async (t) => {
    const pennon = await useTestApp(t, database)
    let run = 0
    const pick = fc.nat(6)
    const operation = fc.oneof(
      fc.record({ op: fc.constant('depend' as const), a: pick, b: pick, foreignUrl: fc.boolean() }),
      fc.record({ op: fc.constant('undepend' as const), a: pick, b: pick }),
      fc.record({ op: fc.constant('undependAll' as const), a: pick }),
      fc.record({ op: fc.constant('archiveOne' as const), a: pick }),
      fc.record({ op: fc.constant('archive' as const), set: fc.array(pick, { maxLength: 4 }) }),
      fc.record({ op: fc.constant('revive' as const), set: fc.array(pick, { maxLength: 4 }) }),
      fc.record({ op: fc.constant('delete' as const), set: fc.array(pick, { maxLength: 4 }) }),
      fc.record({ op: fc.constant('create' as const), a: pick }),
    )
    await fc.assert(
      fc.asyncProperty(
        fc.array(operation, { minLength: 1, maxLength: 20 }),
        fc.array(pick, { maxLength: 7 }),
        async (operations, finalBatch) => {
          run++
          const [project, other] = [`s${run}`, `s${run}-other`]
          await createProject(pennon, project)
          await createProject(pennon, other)
          // Flags 0–4 live in the project, 5–6 in the other one.
          const names = Array.from({ length: 7 }, (_, i) => `s${run}-f${i}`)
          const home = (i: number) => (i < 5 ? project : other)
          for (let i = 0; i < names.length; i++) await createFlag(pennon, names[i]!, home(i))

          for (const operation of operations) {
            const response = await (async () => {
              switch (operation.op) {
                case 'depend':
                  return addDependency(
                    pennon,
                    names[operation.a]!,
                    { feature: names[operation.b]! },
                    operation.foreignUrl ? other : project,
                  )
                case 'undepend':
                  return call(pennon, 'DELETE', `${projectPath(project)}/features/${names[operation.a]}/dependencies/${names[operation.b]}`)
                case 'undependAll':
                  return call(pennon, 'DELETE', `${projectPath(project)}/features/${names[operation.a]}/dependencies`)
                case 'archiveOne':
                  return call(pennon, 'DELETE', `${projectPath(project)}/features/${names[operation.a]}`)
                case 'archive':
                  return archive(
                    pennon,
                    operation.set.map((i) => names[i]),
                    project,
                  )
                case 'revive':
                  return revive(
                    pennon,
                    operation.set.map((i) => names[i]),
                    project,
                  )
                case 'delete':
                  return deleteFlags(
                    pennon,
                    operation.set.map((i) => names[i]),
                    project,
                  )
                case 'create':
                  return call(pennon, 'POST', `${projectPath(home(operation.a))}/features`, { name: names[operation.a] })
              }
            })()
            assert.ok(
              [200, 201, 202, 400, 404, 409].includes(response.status),
              `${JSON.stringify(operation)}: ${response.status} ${response.text}`,
            )
            await assertInvariant(pennon)
          }

          // Whatever state the sequence left, validate agrees with the model read from the tables.
          const rows = await pennon.database.db
            .selectFrom('features')
            .select(['name', 'project', 'archived_at'])
            .where('name', 'like', `s${run}-%`)
            .execute()
          const flags = new Map(rows.map((row) => [row.name, { project: row.project, archived: row.archived_at !== null }]))
          const parentOf = new Map((await dependencyRows(pennon)).map((row) => [row.child, row.parent]))
          const features = finalBatch.map((i) => names[i]!)
          assert.deepEqual((await validate(pennon, features, project)).body, modelValidation(features, project, flags, parentOf))
        },
      ),
      { numRuns: RUNS },
    )
  })
})
