/**
 * pg and pg-cursor, loaded when a PostgreSQL database is first opened: an instance on SQLite
 * never loads them (they keep about 10 MB resident).
 */
import { createRequire } from 'node:module'
import type * as Pg from 'pg'
import type Cursor from 'pg-cursor'

const require = createRequire(import.meta.url)

export const loadPg = (): typeof Pg => require('pg') as typeof Pg
export const loadPgCursor = (): typeof Cursor => require('pg-cursor') as typeof Cursor
