/**
 * Creates or drops a PostgreSQL database for one test run:
 *   node scripts/test-database.ts create postgres://postgres@127.0.0.1:5432/pennon_ci_123
 *   node scripts/test-database.ts drop   postgres://postgres@127.0.0.1:5432/pennon_ci_123
 * It connects to the server's `postgres` database to do so.
 */
import pg from 'pg'

const [action, url] = process.argv.slice(2)
if ((action !== 'create' && action !== 'drop') || !url) {
  console.error('usage: node scripts/test-database.ts create|drop <postgres-url>')
  process.exit(2)
}
const target = new URL(url)
const name = target.pathname.slice(1)
if (!/^[a-z_][a-z0-9_]*$/.test(name)) {
  console.error(`refusing database name ${JSON.stringify(name)}`)
  process.exit(2)
}
const maintenance = new URL(url)
maintenance.pathname = '/postgres'
const client = new pg.Client({ connectionString: maintenance.toString() })
await client.connect()
try {
  if (action === 'create') {
    await client.query(`create database ${name}`)
    // A test database need not survive a crash of PostgreSQL itself: a commit does not wait for its
    // WAL to reach the disk (each test migrates a schema of its own: thousands of commits a run).
    // What a crashed Pennon leaves is tested still: PostgreSQL keeps running and has every commit.
    await client.query(`alter database ${name} set synchronous_commit = off`)
  } else await client.query(`drop database if exists ${name} with (force)`)
} finally {
  await client.end()
}
