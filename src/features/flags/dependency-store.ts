import type { Kysely } from 'kysely'
import type { Database, FeatureDependenciesTable } from '../../db/tables.ts'
import { inNames } from '../../db/name-set.ts'

export interface Dependency {
  child: string
  parent: string
  enabled: boolean
  variants: string[]
}

const toDependency = (row: FeatureDependenciesTable): Dependency => ({
  child: row.child,
  parent: row.parent,
  enabled: Boolean(row.enabled),
  variants: JSON.parse(row.variants) as string[],
})

export function createDependencyStore(db: Kysely<Database>) {
  return {
    async parentOf(child: string): Promise<Dependency | undefined> {
      const row = await db.selectFrom('feature_dependencies').selectAll().where('child', '=', child).executeTakeFirst()
      return row && toDependency(row)
    },

    /** Whether any flag depends on another, in any project (one row read at most). */
    async anyExist(): Promise<boolean> {
      return (await db.selectFrom('feature_dependencies').select('child').limit(1).executeTakeFirst()) !== undefined
    },

    async childrenOf(parent: string): Promise<string[]> {
      const rows = await db.selectFrom('feature_dependencies').select('child').where('parent', '=', parent).orderBy('child').execute()
      return rows.map((row) => row.child)
    },

    /** One parent per child: a new parent replaces the old one. */
    async upsert(dependency: Dependency): Promise<void> {
      const values = { parent: dependency.parent, enabled: dependency.enabled, variants: JSON.stringify(dependency.variants) }
      await db
        .insertInto('feature_dependencies')
        .values({ child: dependency.child, ...values })
        .onConflict((conflict) => conflict.column('child').doUpdateSet(values))
        .execute()
    },

    /** Removes `child → parent` if the child is a flag of `project`; says whether a row went. */
    async remove(project: string, child: string, parent: string): Promise<boolean> {
      const result = await db
        .deleteFrom('feature_dependencies')
        .where('child', '=', child)
        .where('parent', '=', parent)
        .where('child', 'in', (query) =>
          query.selectFrom('features').select('name').where('name', '=', child).where('project', '=', project),
        )
        .executeTakeFirst()
      return result.numDeletedRows > 0n
    },

    /** Removes the dependency rows of these children (each has at most one); returns the children that had one, sorted. */
    async removeParentsOf(children: readonly string[]): Promise<string[]> {
      if (children.length === 0) return []
      const rows = await db
        .deleteFrom('feature_dependencies')
        .where(inNames(db, 'child', children))
        .returning('child')
        .execute()
      return rows.map((row) => row.child).sort()
    },

    /** The active flags of the project that `child` could depend on: not itself, not a child already. Sorted. */
    async possibleParents(project: string, child: string): Promise<string[]> {
      const rows = await db
        .selectFrom('features')
        .select('name')
        .where('project', '=', project)
        .where('archived_at', 'is', null)
        .where('name', '<>', child)
        .where(({ not, exists, selectFrom }) =>
          not(exists(selectFrom('feature_dependencies').select('child').whereRef('feature_dependencies.child', '=', 'features.name'))),
        )
        .orderBy('name')
        .execute()
      return rows.map((row) => row.name)
    },
  }
}
