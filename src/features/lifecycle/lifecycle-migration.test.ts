/** Migration 0022 on each database: flags that exist when it runs get initial at their creation, and archived at their archiving. */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createDb } from '../../db/database.ts'
import { migrateToLatest } from '../../db/migrate.ts'
import * as featureLifecycles from '../../db/migrations/0022-feature-lifecycles.ts'
import { createTestStorage, onEachDatabase } from '../../../test/test-app.ts'

onEachDatabase('migration 0022: lifecycle stages of existing flags', (database) => {
  test('initial at createdAt for every flag; archived at archivedAt for archived ones', async () => {
    const storage = await createTestStorage(database)
    const { db, close } = createDb({ ...storage.options, poolSize: 2 })
    try {
      await migrateToLatest(db)
      const flag = (name: string, created: string, archived: string | null) => ({
        name,
        project: 'default',
        description: null,
        type: 'release',
        stale: false,
        impression_data: false,
        created_at: created,
        archived_at: archived,
      })
      // Flags as they were before the migration: rows of features alone.
      await featureLifecycles.down(db)
      await db
        .insertInto('features')
        .values([flag('kept', '2025-01-01T00:00:00.000Z', null), flag('gone', '2025-02-01T00:00:00.000Z', '2025-03-01T00:00:00.000Z')])
        .execute()
      await featureLifecycles.up(db)
      const rows = await db
        .selectFrom('feature_lifecycles')
        .select(['feature', 'stage', 'status', 'created_at'])
        .orderBy('feature')
        .orderBy('created_at')
        .execute()
      assert.deepEqual(
        rows.map((row) => [row.feature, row.stage, row.status, new Date(row.created_at).toISOString()]),
        [
          ['gone', 'initial', null, '2025-02-01T00:00:00.000Z'],
          ['gone', 'archived', null, '2025-03-01T00:00:00.000Z'],
          ['kept', 'initial', null, '2025-01-01T00:00:00.000Z'],
        ],
      )
    } finally {
      await close()
      await storage.drop()
    }
  })
})
