/**
 * The console's files, read once per process from `console/` (plain ES modules, CSS, an
 * icon: served as they are, no build step). Every asset is addressed under a version made from
 * the hash of all of them, `/console/<version>/js/main.js`, so relative imports between modules
 * keep working and each address can be cached for a year: a changed file changes the version
 * of them all, and index.html (never cached without revalidation) names the new one.
 */
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { extname, join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
}

export interface ConsoleFile {
  readonly body: Buffer
  readonly gzip: Buffer
  readonly type: string
}

export interface ConsoleAssets {
  /** First 16 hex digits of the SHA-256 over every asset's path and bytes. */
  readonly version: string
  /** By path under the version, e.g. `js/main.js`. */
  readonly files: ReadonlyMap<string, ConsoleFile>
  /** index.html for an `AUTH_TYPE`: the client needs no sign-in under `none`. */
  index(authType: string): ConsoleFile
}

export const CONSOLE_DIR = fileURLToPath(new URL('../../../console/', import.meta.url))

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort()
}

const compress = (body: Buffer, type: string): ConsoleFile => ({ body, gzip: gzipSync(body, { level: 9 }), type })

function loadConsoleAssets(dir: string): ConsoleAssets {
  const assetsDir = join(dir, 'assets')
  const files = new Map<string, ConsoleFile>()
  const hash = createHash('sha256')
  for (const path of filesUnder(assetsDir)) {
    const type = CONTENT_TYPES[extname(path)]
    if (!type) continue
    const name = relative(assetsDir, path).split(sep).join('/')
    const body = readFileSync(path)
    hash.update(`${name}\0${body.length}\0`).update(body)
    files.set(name, compress(body, type))
  }
  const version = hash.digest('hex').slice(0, 16)
  const base = `/console/${version}/`
  // Every module is fetched at once instead of import by import (no waterfall on a slow link).
  const preload = [...files.keys()]
    .filter((name) => name.endsWith('.js') && name !== 'js/main.js')
    .map((name) => `<link rel="modulepreload" href="${base}${name}">`)
    .join('\n')
  const template = readFileSync(join(dir, 'index.html'), 'utf8')
  const indexes = new Map<string, ConsoleFile>()
  return {
    version,
    files,
    index(authType) {
      let index = indexes.get(authType)
      if (!index) {
        const html = template
          .replaceAll('{{base}}', base)
          .replace('{{preload}}', preload)
          .replace('{{authType}}', authType === 'none' ? 'none' : 'token')
        index = compress(Buffer.from(html), 'text/html; charset=utf-8')
        indexes.set(authType, index)
      }
      return index
    },
  }
}

const loaded = new Map<string, ConsoleAssets>()

/** The console's assets, read and compressed on first use (tests build many apps in one process). */
export function consoleAssets(dir: string = CONSOLE_DIR): ConsoleAssets {
  let assets = loaded.get(dir)
  if (!assets) {
    assets = loadConsoleAssets(dir)
    loaded.set(dir, assets)
  }
  return assets
}
