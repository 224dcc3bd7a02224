/**
 * JSON Patch (RFC 6902) over JSON Pointers (RFC 6901), for the PATCH routes: pure, applied
 * to a copy. A patch that cannot apply is a 400 naming the operation (`/body/2/path`), and
 * nothing of it takes effect.
 */
import { isDeepStrictEqual } from 'node:util'
import { Type, type TSchema } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import type { BodyRules } from './body-rules.ts'
import { bodyReport, type AjvError } from './error-handler.ts'
import { quote, validationFailed, type ErrorDetail } from './errors.ts'

export interface PatchOperation {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test'
  path: string
  from?: string
  value?: unknown
}

/** The body of a PATCH route: RFC 6902 operations. */
export const PatchBody = Type.Array(
  Type.Object({
    op: Type.Unsafe<PatchOperation['op']>({ type: 'string', enum: ['add', 'remove', 'replace', 'move', 'copy', 'test'] }),
    path: Type.String({ maxLength: 1000, description: 'A JSON Pointer' }),
    from: Type.Optional(Type.String({ maxLength: 1000, description: 'A JSON Pointer: where move and copy take the value' })),
    value: Type.Optional(Type.Unknown()),
  }),
  { maxItems: 1000, description: 'JSON Patch (RFC 6902) operations, applied in order, all or none' },
)

type Container = Record<string, unknown> | unknown[]

class PatchFailure extends Error {
  readonly field: 'path' | 'from' | 'value' | 'op'
  constructor(field: PatchFailure['field'], message: string) {
    super(message)
    this.field = field
  }
}

function parsePointer(pointer: string, field: 'path' | 'from'): string[] {
  if (pointer === '') return []
  if (!pointer.startsWith('/'))
    throw new PatchFailure(field, `must be a JSON Pointer (empty, or starting with "/"); you sent ${quote(pointer)}`)
  return pointer
    .slice(1)
    .split('/')
    .map((token) => {
      const decoded = token.replaceAll('~1', '/').replaceAll('~0', '~')
      if (decoded === '__proto__') throw new PatchFailure(field, 'must not name `__proto__`')
      return decoded
    })
}

const isContainer = (value: unknown): value is Container => typeof value === 'object' && value !== null

function arrayIndex(array: unknown[], token: string, field: 'path' | 'from', allowEnd: boolean): number {
  if (allowEnd && token === '-') return array.length
  const index = /^(0|[1-9][0-9]{0,8})$/.test(token) ? Number(token) : Number.NaN
  if (!(index < array.length || (allowEnd && index === array.length))) {
    throw new PatchFailure(field, `names array index ${quote(token)}, which does not exist (the array has ${array.length} items)`)
  }
  return index
}

/** The container holding the pointer's last token, and that token. */
function parentOf(document: unknown, tokens: string[], field: 'path' | 'from'): { parent: Container; last: string } {
  let current = document
  for (const token of tokens.slice(0, -1)) {
    if (Array.isArray(current)) current = current[arrayIndex(current, token, field, false)]
    else if (isContainer(current) && Object.hasOwn(current, token)) current = (current as Record<string, unknown>)[token]
    else throw new PatchFailure(field, `names ${quote(token)}, which does not exist`)
  }
  if (!isContainer(current)) throw new PatchFailure(field, 'goes through a value that is neither an object nor an array')
  return { parent: current, last: tokens[tokens.length - 1]! }
}

function read(document: unknown, pointer: string, field: 'path' | 'from'): unknown {
  const tokens = parsePointer(pointer, field)
  if (tokens.length === 0) return document
  const { parent, last } = parentOf(document, tokens, field)
  if (Array.isArray(parent)) return parent[arrayIndex(parent, last, field, false)]
  if (!Object.hasOwn(parent, last)) throw new PatchFailure(field, `names ${quote(last)}, which does not exist`)
  return parent[last]
}

function remove(document: unknown, pointer: string, field: 'path' | 'from'): unknown {
  const tokens = parsePointer(pointer, field)
  if (tokens.length === 0) throw new PatchFailure(field, 'must not be the whole document for this operation')
  const { parent, last } = parentOf(document, tokens, field)
  if (Array.isArray(parent)) return parent.splice(arrayIndex(parent, last, field, false), 1)[0]
  if (!Object.hasOwn(parent, last)) throw new PatchFailure(field, `names ${quote(last)}, which does not exist`)
  const removed = parent[last]
  delete parent[last]
  return removed
}

/** Adds (or, for `replace`, overwrites an existing) value; returns the new document. */
function put(document: unknown, pointer: string, value: unknown, mode: 'add' | 'replace'): unknown {
  const tokens = parsePointer(pointer, 'path')
  if (tokens.length === 0) return value
  const { parent, last } = parentOf(document, tokens, 'path')
  if (Array.isArray(parent)) {
    const index = arrayIndex(parent, last, 'path', mode === 'add')
    parent.splice(index, mode === 'add' ? 0 : 1, value)
  } else {
    if (mode === 'replace' && !Object.hasOwn(parent, last)) throw new PatchFailure('path', `names ${quote(last)}, which does not exist`)
    parent[last] = value
  }
  return document
}

/**
 * Applies `operations` to a copy of `document` and returns the result; throws a 400 naming
 * the first operation that cannot apply (`pathPrefix` is where the patch sits, e.g. `/body`).
 */
export function applyPatch(document: unknown, operations: readonly PatchOperation[], pathPrefix = '/body'): unknown {
  let result: unknown = structuredClone(document)
  for (const [index, operation] of operations.entries()) {
    try {
      result = applyOne(result, operation)
    } catch (error) {
      if (!(error instanceof PatchFailure)) throw error
      const at = `${pathPrefix}/${index}/${error.field}`
      throw validationFailed([
        { path: at, message: `Patch operation ${index} (${quote(operation.op)}) cannot apply: the \`${at}\` property ${error.message}.` },
      ])
    }
  }
  return result
}

function applyOne(document: unknown, operation: PatchOperation): unknown {
  switch (operation.op) {
    case 'add':
    case 'replace':
      if (!('value' in operation)) throw new PatchFailure('value', `is required by this operation`)
      return put(document, operation.path, structuredClone(operation.value), operation.op)
    case 'remove':
      remove(document, operation.path, 'path')
      return document
    case 'copy':
    case 'move': {
      if (operation.from === undefined) throw new PatchFailure('from', `is required by this operation`)
      if (operation.op === 'move' && `${operation.path}/`.startsWith(`${operation.from}/`) && operation.path !== operation.from) {
        throw new PatchFailure('from', 'must not be a prefix of `path`: a value cannot move into itself')
      }
      const value =
        operation.op === 'move' ? remove(document, operation.from, 'from') : structuredClone(read(document, operation.from, 'from'))
      return put(document, operation.path, value, 'add')
    }
    case 'test':
      if (!isDeepStrictEqual(read(document, operation.path, 'path'), operation.value)) {
        throw new PatchFailure('value', `does not equal the value at ${quote(operation.path)}: the test failed`)
      }
      return document
    default:
      throw new PatchFailure(
        'op',
        `must be one of "add", "remove", "replace", "move", "copy", "test"; you sent ${quote((operation as { op: unknown }).op)}`,
      )
  }
}

/** The checks of a patched document's shape: the problems found, none when it is valid. */
export type ShapeCheck = (document: unknown) => ErrorDetail[]

/**
 * Checks a patched document as a sent body would be: against a body schema, with the route's own
 * validator (the same options and messages), and its body rules where the schema found no fault.
 */
export function shapeCheck(request: FastifyRequest, schema: TSchema, rules?: BodyRules): ShapeCheck {
  const validate = request.compileValidationSchema(schema, 'body')
  return (document) => (validate(document) ? [] : bodyReport((validate.errors ?? []) as AjvError[], document, rules))
}
