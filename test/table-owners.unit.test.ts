// One owner per table, as a test: every table of src/db/tables.ts belongs to one folder of src/features/
// (the one whose store writes it), and only files of that folder name it in a query. Another feature
// reads or changes the table through a named function of the owner's store — imported when the owner is
// ranked below it (test/layering.unit.test.ts), handed down as a narrow interface by app.ts when it is
// ranked above. A failure names file → table. docs/architecture.md, "Tables and their owners".
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { test } from 'node:test'

/** Table → the folder of src/ that owns it: the folder its writes live in. */
export const OWNERS: Record<string, string> = {
  projects: 'features/projects',
  features: 'features/flags',
  feature_dependencies: 'features/flags',
  feature_links: 'features/flags',
  segments: 'features/segments',
  api_tokens: 'features/api-tokens',
  service_accounts: 'features/api-tokens',
  service_account_tokens: 'features/api-tokens',
  users: 'features/users',
  user_activity: 'features/users',
  password_reset_tokens: 'features/users',
  user_sessions: 'features/sessions',
  public_signup_tokens: 'features/invite-links',
  public_signup_tokens_user: 'features/invite-links',
  personal_access_tokens: 'features/personal-tokens',
  events: 'features/events',
  // Ids (SQLite) and maintained counts, advanced by several features through db/counters.ts.
  counters: 'db',
  // PostgreSQL: what the change watch's poll reads (migration 0027).
  change_marks: 'db',
  environments: 'features/environments',
  project_environments: 'features/environments',
  feature_environments: 'features/flag-environments',
  feature_strategies: 'features/flag-environments',
  feature_strategy_segments: 'features/flag-environments',
  strategy_definitions: 'features/strategy-definitions',
  client_metrics_env: 'features/metrics',
  client_metrics_env_variants: 'features/metrics',
  client_applications: 'features/metrics',
  client_applications_usage: 'features/metrics',
  client_instances: 'features/metrics',
  last_seen_at_metrics: 'features/metrics',
  unknown_flags: 'features/metrics',
  feature_types: 'features/feature-types',
  context_fields: 'features/context-fields',
  tag_types: 'features/tags',
  tags: 'features/tags',
  feature_tags: 'features/tags',
  addons: 'features/integrations',
  integration_events: 'features/integrations',
  settings: 'features/maintenance',
  oidc_logins: 'features/sso',
  oidc_sessions: 'features/sso',
  change_request_settings: 'features/change-requests',
  change_requests: 'features/change-requests',
  change_request_changes: 'features/change-requests',
  change_request_reviews: 'features/change-requests',
  change_request_comments: 'features/change-requests',
  feature_lifecycles: 'features/lifecycle',
  favorite_features: 'features/favorites',
  favorite_projects: 'features/favorites',
  edge_nonces: 'features/edge',
}

/**
 * Read models: one file that joins several features' tables for one answer, allowed to read (never
 * write) the tables listed, each with the reason it is one query rather than calls into each owner.
 */
export const READ_MODELS: Record<string, { tables: string[]; reason: string }> = {
  'src/features/client-api/client-features-store.ts': {
    tables: [
      'counters',
      'feature_dependencies',
      'feature_environments',
      'feature_strategies',
      'feature_strategy_segments',
      'feature_tags',
      'features',
      'segments',
    ],
    reason:
      "the SDKs' answer: every flag of an environment with its strategies, segments, dependencies and tags, read in one snapshot per flags version",
  },
  'src/features/events/event-store.ts': {
    tables: ['feature_tags'],
    reason:
      "a flag's event carries the flag's tags as they are when it is written; the events store is beneath every feature, so it reads them itself rather than have each of the writers hand them in",
  },
  'src/features/flag-environments/flag-environment-store.ts': {
    tables: ['last_seen_at_metrics'],
    reason:
      "a flag's environments as the API shows them, each with when an SDK last saw it, in the same read as the switch and variants (metrics/ ranks above)",
  },
  'src/features/feature-search/feature-search-store.ts': {
    tables: [
      'environments',
      'events',
      'feature_dependencies',
      'feature_environments',
      'feature_strategies',
      'feature_strategy_segments',
      'feature_tags',
      'features',
      'last_seen_at_metrics',
      'segments',
      'tag_types',
    ],
    reason:
      "the reference's flag search: filters on a flag's tags, segments, environments, sightings and creation event decide which flags are in the page, so they are one query; the page's details are then read in a few batched queries",
  },
  'src/features/project-insights/project-insights-store.ts': {
    tables: ['client_applications_usage', 'environments', 'events', 'features', 'last_seen_at_metrics', 'project_environments', 'users'],
    reason:
      "a project's overview and insights: its flags' counts and health, its lead times (a flag's creation and its first switch-on in a production environment), its onboarding (SDK sightings) and its creator, each one query over the features' tables in one answer",
  },
  'src/features/personal-dashboard/personal-dashboard-store.ts': {
    tables: ['events', 'features', 'projects', 'users'],
    reason:
      'the personal dashboard: the flags and projects a person created are known by their creation events (the reference reads its role tables), each list one query joining those events to what they created',
  },
  'src/features/instance-admin/instance-stats-store.ts': {
    tables: [
      'api_tokens',
      'client_instances',
      'client_metrics_env',
      'client_metrics_env_variants',
      'context_fields',
      'environments',
      'events',
      'feature_strategies',
      'features',
      'personal_access_tokens',
      'projects',
      'segments',
      'service_accounts',
      'settings',
      'strategy_definitions',
      'user_activity',
      'users',
    ],
    reason:
      "the instance statistics: a count of each feature's rows (people, tokens, flags, events, applications…) for one usage report, read nowhere else",
  },
  'src/features/export-import/export-import-store.ts': {
    tables: [
      'feature_dependencies',
      'feature_environments',
      'feature_strategies',
      'feature_strategy_segments',
      'feature_tags',
      'features',
      'segments',
      'strategy_definitions',
      'tag_types',
    ],
    reason:
      "the reference's export document, and an import's view of its target: a whole project's flags with all that hangs off them, in one transaction",
  },
}

const root = join(import.meta.dirname, '..')
const src = join(root, 'src')

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return /\.(ts|mjs)$/.test(entry.name) && !entry.name.endsWith('.test.ts') ? [path] : []
  })
}

/** The folder a file of src/ belongs to, named as OWNERS names owners. */
function folderOf(file: string): string {
  const parts = relative(src, file).split('/')
  return parts[0] === 'features' ? `features/${parts[1]}` : parts[0]!
}

/**
 * The tables a source text names in a query: Kysely's selectFrom / insertInto / updateTable /
 * deleteFrom / joins (a name, `name as alias`, or a list of them), lockRows(trx, 'table', …), and
 * `from` / `join` / `into` / `update` inside sql`…` templates.
 */
export function tablesOf(text: string): string[] {
  const found = new Set<string>()
  const builder =
    /\b(?:selectFrom|insertInto|replaceInto|updateTable|deleteFrom|mergeInto|innerJoin|leftJoin|rightJoin|fullJoin|crossJoin|innerJoinLateral|leftJoinLateral)\s*\(\s*(\[[^\]]*\]|['"][^'"]+['"])/g
  for (const match of text.matchAll(builder)) {
    for (const name of match[1]!.matchAll(/['"]([a-z_][a-z0-9_]*)/g)) found.add(name[1]!)
  }
  for (const match of text.matchAll(/\blockRows\s*\(\s*\w+\s*,\s*['"]([a-z_][a-z0-9_]*)['"]/g)) found.add(match[1]!)
  for (const template of text.matchAll(/\bsql(?:<[^`]*?>)?`([^`]*)`/g)) {
    for (const name of template[1]!.matchAll(/\b(?:from|join|into|update)\s+"?([a-z_][a-z0-9_]*)"?/gi)) found.add(name[1]!)
  }
  return [...found].filter((name) => name in OWNERS).sort()
}

const show = (path: string) => relative(root, path)
const uses = sourceFiles(src).map((file) => ({ file: show(file), folder: folderOf(file), tables: tablesOf(readFileSync(file, 'utf8')) }))

test('every table of src/db/tables.ts has an owner', () => {
  const text = readFileSync(join(src, 'db/tables.ts'), 'utf8')
  const database = /export interface Database \{([\s\S]*?)\n\}/.exec(text)?.[1] ?? ''
  const tables = [...database.matchAll(/^\s*([a-z_][a-z0-9_]*)\s*:/gm)].map((match) => match[1]!)
  assert.ok(tables.length > 0, 'the Database interface of src/db/tables.ts was not found')
  assert.deepEqual(Object.keys(OWNERS).sort(), tables.sort())
})

test('a table is named in queries only by its owner folder', () => {
  const foreign: string[] = []
  for (const { file, folder, tables } of uses) {
    // src/db/ is the database itself, beneath every feature: migrations create and change every
    // table, counters.ts advances the counters, change-watch.ts and the dialects see all writes.
    if (folder === 'db') continue
    for (const table of tables) {
      if (OWNERS[table] === folder) continue
      if (READ_MODELS[file]?.tables.includes(table)) continue
      foreign.push(`${file} → ${table} (owned by ${OWNERS[table]})`)
    }
  }
  assert.deepEqual(foreign, [], 'move these uses into the owner’s store (docs/architecture.md, "Tables and their owners")')
})

test('read models only read', () => {
  const writes: string[] = []
  for (const [file, model] of Object.entries(READ_MODELS)) {
    const text = readFileSync(join(root, file), 'utf8')
    for (const match of text.matchAll(/\b(?:insertInto|replaceInto|updateTable|deleteFrom|mergeInto)\s*\(\s*['"]([a-z_]+)/g)) {
      if (model.tables.includes(match[1]!)) writes.push(`${file} → ${match[1]}`)
    }
  }
  assert.deepEqual(writes, [])
})

test('the table reader sees builders, aliases, lists, joins, row locks and raw SQL', () => {
  const text = [
    "db.selectFrom('features as f').innerJoin('feature_environments as fe', 'fe.feature_name', 'f.name')",
    ".leftJoin('tags', (join) => join)",
    "trx.selectFrom(['segments', 'projects'])",
    "trx.insertInto('events').values(row)",
    "await lockRows(trx, 'users', 'id', [1])",
    'sql`insert into client_instances (a) select c0 from x`',
    'sql<{ n: number }>`select n from "counters" where name = \'a\'`',
    "// a comment that reads from tags is no query: from 'x'",
  ].join('\n')
  assert.deepEqual(tablesOf(text), [
    'client_instances',
    'counters',
    'events',
    'feature_environments',
    'features',
    'projects',
    'segments',
    'tags',
    'users',
  ])
})
