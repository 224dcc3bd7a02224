/** Entry point: configuration → database → migrations and bootstrap → app → listen; graceful shutdown. */
import type { Socket } from 'node:net'
import { flushCompileCache } from 'node:module'
import { ConfigError, loadConfig, type Config } from './config.ts'
import { createDb } from './db/database.ts'
import { migrateToLatest } from './db/migrate.ts'
import { buildApp } from './app.ts'
import { createTokenService, type BootstrapOutcome } from './features/api-tokens/token-service.ts'
import { environmentExists } from './features/environments/environment-store.ts'
import { lockSigningInAdmins } from './features/users/user-store.ts'

async function main(): Promise<void> {
  let config: Config
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
  let bootstrap: BootstrapOutcome = { kind: 'nothing' }
  await migrateToLatest(database.db, async () => {
    bootstrap = await createTokenService({ db: database.db, lockSigningInAdmins, environmentExists }).bootstrap(
      config.initAdminApiTokens,
      config.authType === 'open-source',
    )
  })

  const app = await buildApp({ config, database })
  tellOperator(bootstrap, config.port)

  const connections = new Set<Socket>()
  app.server.on('connection', (socket: Socket) => {
    connections.add(socket)
    socket.once('close', () => connections.delete(socket))
  })
  let closing = false
  const shutdown = async (signal: string) => {
    if (closing) return
    closing = true
    app.log.info({ signal }, 'shutting down: finishing in-flight requests')
    const timer = setTimeout(() => process.exit(1), 10_000)
    timer.unref()
    // Keep-alive connections that finish their request during the close go idle; close them as they
    // do. A connection that never sent a byte (a browser's preconnect) is not idle to Node and would
    // hold the close until the exit above: it is cut too.
    const sweep = () => {
      app.server.closeIdleConnections()
      for (const socket of connections) if (socket.bytesRead === 0) socket.destroy()
    }
    const sweeper = setInterval(sweep, 100)
    sweeper.unref()
    sweep()
    await app.close()
    await database.close()
    process.exit(0)
  }
  process.on('SIGTERM', () => void shutdown('SIGTERM'))
  process.on('SIGINT', () => void shutdown('SIGINT'))

  await app.listen({ port: config.port, host: config.host })
  // Node's compile cache (src/compile-cache.mjs) holds each module's cache bytes in memory until it
  // is written out, at exit by default: some 6 MB of malloc's heap for the life of the process. Every
  // module is loaded by now; writing the cache out here frees that memory for the server's own use.
  flushCompileCache()
  tellAboutOpenAccess(config)
}

const isLoopback = (host: string): boolean =>
  host === 'localhost' || host === '::1' || /^(::ffff:)?127\.[0-9]+\.[0-9]+\.[0-9]+$/i.test(host)

/** With AUTH_TYPE=none, who can reach Pennon is who administers it: one line says who that is. */
function tellAboutOpenAccess(config: Config): void {
  if (config.authType !== 'none') return
  if (isLoopback(config.host)) {
    process.stdout.write(`AUTH_TYPE=none: listening on ${config.host} only; anyone who can reach this port is an admin.\n`)
  } else {
    process.stderr.write(
      `Warning: AUTH_TYPE=none with HOST=${config.host}: anyone who can reach this port from another machine is an admin, with no credential; ` +
        'set HOST=127.0.0.1, or require tokens (AUTH_TYPE=open-source).\n',
    )
  }
}

/** What the start-up did about admin tokens, for the operator watching it start. */
function tellOperator(outcome: BootstrapOutcome, port: number): void {
  if (outcome.kind === 'generated') {
    // Printed once, never logged as structured data and never stored in clear.
    process.stdout.write(
      `\nNo API token existed, so Pennon created an admin token. It is shown only this once:\n\n    ${outcome.secret}\n\n` +
        `Use it as: curl -H "Authorization: ${outcome.secret}" http://127.0.0.1:${port}/api/admin/projects\n\n` +
        `To sign in with a password instead, create an Admin user (it prints a link where they set it):\n\n    npm run admin-user -- you@example.com\n\n`,
    )
  } else if (outcome.kind === 'stored') {
    const entries = outcome.count === 1 ? 'entry' : `${outcome.count} entries`
    process.stdout.write(`\nStored the INIT_ADMIN_API_TOKENS ${entries} as admin token "${outcome.tokenName}".\n\n`)
  } else if (outcome.kind === 'locked-out') {
    process.stderr.write(
      '\nWarning: no token can administer Pennon (no admin API token or Admin service-account token is left unexpired),\n' +
        'so its admin API and console refuse everybody. To get back in, mint an admin token on this database:\n\n' +
        '    npm run admin-token\n\n' +
        'with the same DATABASE_URL or DATABASE_FILE (it prints the token once), or restart with INIT_ADMIN_API_TOKENS=*:*.<secret>.\n\n',
    )
  }
}

await main()
