/** Entry point: configuration → database → migrations and bootstrap → app → listen; graceful shutdown. */
import { ConfigError, loadConfig } from './config.ts'
import { createDb } from './db/database.ts'
import { migrateToLatest } from './db/migrate.ts'
import { buildApp } from './app.ts'
import { createTokenService } from './features/api-tokens/token-service.ts'

async function main(): Promise<void> {
  let config
  try {
    config = loadConfig(process.env)
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`pennon: invalid configuration: ${error.message}`)
      process.exit(1)
    }
    throw error
  }

  const database = createDb({ databaseUrl: config.databaseUrl, databaseFile: config.databaseFile })
  let bootstrapSecret: string | undefined
  await migrateToLatest(database.db, async () => {
    bootstrapSecret = await createTokenService({ db: database.db }).bootstrap(config.initAdminApiTokens, config.authType === 'open-source')
  })

  const app = await buildApp({ config, database })
  if (bootstrapSecret) {
    // Printed once, never logged as structured data and never stored in clear.
    process.stdout.write(
      `\nNo API token existed, so Pennon created an admin token. It is shown only this once:\n\n    ${bootstrapSecret}\n\n` +
        `Use it as: curl -H "Authorization: ${bootstrapSecret}" http://127.0.0.1:${config.port}/api/admin/projects\n\n`,
    )
  }

  let closing = false
  const shutdown = async (signal: string) => {
    if (closing) return
    closing = true
    app.log.info({ signal }, 'shutting down: finishing in-flight requests')
    const timer = setTimeout(() => process.exit(1), 10_000)
    timer.unref()
    // Keep-alive connections that finish their request during the close go idle; close them as they do.
    const sweeper = setInterval(() => app.server.closeIdleConnections(), 100)
    sweeper.unref()
    await app.close()
    await database.close()
    process.exit(0)
  }
  process.on('SIGTERM', () => void shutdown('SIGTERM'))
  process.on('SIGINT', () => void shutdown('SIGINT'))

  await app.listen({ port: config.port, host: config.host })
}

await main()
