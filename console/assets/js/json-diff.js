// @ts-check
/** Differences between two JSON values, leaf by leaf, as lines a person reads (events, reverts). */

/**
 * Each leaf of a JSON value by path (`strategies[0].parameters.rollout`).
 * @param {unknown} value
 * @param {string} path
 * @param {Map<string, string>} out
 */
function flatten(value, path, out) {
  if (value !== null && typeof value === 'object') {
    const entries = Array.isArray(value)
      ? value.map((item, index) => [`${path}[${index}]`, item])
      : Object.entries(value).map(([key, item]) => [path ? `${path}.${key}` : key, item])
    if (entries.length === 0) out.set(path || '(value)', Array.isArray(value) ? '[]' : '{}')
    for (const [childPath, item] of entries) flatten(item, String(childPath), out)
  } else {
    out.set(path || '(value)', JSON.stringify(value))
  }
  return out
}

/**
 * The lines that differ between preData and data: removed, added and changed leaves.
 * @param {unknown} before
 * @param {unknown} after
 * @returns {{ kind: 'add' | 'del' | 'chg', text: string }[]}
 */
export function diffLines(before, after) {
  const old = before === null || before === undefined ? new Map() : flatten(before, '', new Map())
  const now = after === null || after === undefined ? new Map() : flatten(after, '', new Map())
  /** @type {{ kind: 'add' | 'del' | 'chg', text: string }[]} */
  const lines = []
  for (const path of new Set([...old.keys(), ...now.keys()])) {
    const a = old.get(path)
    const b = now.get(path)
    if (a === b) continue
    if (a === undefined) lines.push({ kind: 'add', text: `+ ${path}: ${b}` })
    else if (b === undefined) lines.push({ kind: 'del', text: `- ${path}: ${a}` })
    else lines.push({ kind: 'chg', text: `~ ${path}: ${a} → ${b}` })
  }
  return lines
}
