/** What the operator commands share: the server's configuration, and its database (never a new empty one). */
import { existsSync } from 'node:fs'
import { ConfigError, loadConfig, type Config } from '../config.ts'
import { createDb, type Db } from '../db/database.ts'
import { migrateToLatest } from '../db/migrate.ts'

/**
 * The configuration (as `npm start` reads it) and the database it names, migrated; or undefined
 * after saying why not on stderr, as `pennon <command>: …`.
 */
export async function openServerDatabase(command: string): Promise<{ config: Config; database: Db } | undefined> {
  let config: Config
  try {
    config = loadConfig(process.env)
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    process.stderr.write(`pennon ${command}: ${error.message}\n`)
    return undefined
  }
  // A mistyped path would otherwise create a new, empty database and write there.
  if (config.databaseUrl === undefined && !existsSync(config.databaseFile)) {
    process.stderr.write(
      `pennon ${command}: no database at ${config.databaseFile}: set DATABASE_FILE (or DATABASE_URL) as the server has it\n`,
    )
    return undefined
  }
  const database = createDb({ databaseUrl: config.databaseUrl, databaseFile: config.databaseFile })
  await migrateToLatest(database.db)
  return { config, database }
}
