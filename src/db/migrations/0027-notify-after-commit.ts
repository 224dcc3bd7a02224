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
 * every instance also looks, once a second, for changes committed since its last look
 * (pg-change-watch.ts): rows of transactions that had not ended then. An event is one (events.tx,
 * migration 0015); any other change of a watched table by a transaction that has written no event
 * yet (a session ended, a token revoked by hand, events deleted) leaves one in change_marks: its
 * transaction, once.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return
  await sql`create table change_marks (tx xid8 primary key default pg_current_xact_id())`.execute(db)
  // A transaction that wrote an event needs no mark: the event is one (a segment's create writes
  // both in one statement, whose triggers see its event). Deleted events leave none. The table's own schema, always: an
  // operator may write schema.table with another search_path (then a mark whatever was written).
  await sql`create or replace function pennon_notify_change() returns trigger language plpgsql as $$
    begin
      if tg_table_name = 'events' and tg_op = 'INSERT' then
        null;
      elsif tg_table_schema = current_schema() then
        if not exists (select from events where tx = pg_current_xact_id()) then
          insert into change_marks default values on conflict do nothing;
        end if;
      else
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
