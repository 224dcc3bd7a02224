import { sql, type Kysely } from 'kysely'
import { dialectOf } from '../dialect.ts'

/**
 * PostgreSQL: Pennon's writes no longer NOTIFY inside their transaction. PostgreSQL takes one
 * lock on the notification queue at the commit of every transaction that notified, and holds it
 * until the commit is flushed, so all writers of all instances committed one at a time. Pennon's
 * sessions set `pennon.notify_after_commit` (db/database.ts) and notify after their commits
 * instead, on the change watch's session (pg-change-watch.ts); a write by anyone else (an
 * operator, an instance of an older version) still notifies from the trigger, as before.
 *
 * An instance that dies between a commit and its notification must not leave the others stale:
 * every instance also reads, once a second, the newest change committed (pg-change-watch.ts). An
 * event is one (events.tx, migration 0015); a change of a watched table that writes no event (a
 * session ended, a token revoked by hand) leaves one in change_marks: its transaction, once.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return
  await sql`create table change_marks (tx xid8 primary key default pg_current_xact_id())`.execute(db)
  // The table's own schema: an operator may write schema.table with another search_path.
  await sql`create or replace function pennon_notify_change() returns trigger language plpgsql as $$
    begin
      if tg_table_name <> 'events' then
        execute format('insert into %I.change_marks default values on conflict do nothing', tg_table_schema);
      end if;
      if current_setting('pennon.notify_after_commit', true) is distinct from 'on' then
        perform pg_notify('pennon_changes', tg_table_schema);
      end if;
      return null;
    end $$`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return
  await sql`create or replace function pennon_notify_change() returns trigger language plpgsql as $$
    begin
      perform pg_notify('pennon_changes', tg_table_schema);
      return null;
    end $$`.execute(db)
  await sql`drop table if exists change_marks`.execute(db)
}
