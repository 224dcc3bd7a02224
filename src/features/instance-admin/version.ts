/** Pennon's own version (package.json), read once when first asked: what the statistics and the UI configuration report. */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

let version: string | undefined

export function pennonVersion(): string {
  version ??= (JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', '..', 'package.json'), 'utf8')) as { version: string }).version
  return version
}
