import { sql, type Kysely } from 'kysely'
import { dialectOf } from '../dialect.ts'

/**
 * PostgreSQL: event and segment ids come from sequences, not from counter rows. A counter row's
 * lock is held until its transaction's commit is flushed, so every writer of every instance queued
 * behind the one before it; a sequence hands out a value and holds nothing. Ids are then unique and
 * increasing but no longer commit in order (nor gap-free: a rolled-back write skips its ids), so
 * each event records the transaction that wrote it (`tx`): a reader of the log in commit order
 * (events/event-log.ts) reads only what every earlier transaction has finished with, in (tx, id)
 * order. SQLite keeps its counters: its one writer at a time commits ids in order, without gaps.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return
  for (const [sequence, counter] of [
    ['event_ids', 'event_id'],
    ['segment_ids', 'segment_id'],
  ] as const) {
    await sql`create sequence ${sql.id(sequence)} as bigint`.execute(db)
    // The next value follows the counter's (setval's third argument false: the value is not yet taken).
    await sql`select setval(${sequence}, coalesce((select value from counters where name = ${counter}), 0) + 1, false)`.execute(db)
    await sql`delete from counters where name = ${counter}`.execute(db)
  }
  await createReserveFunction(db)
  // Rows already stored take this migration's transaction: committed, so readable at once.
  await sql`alter table events add column tx xid8 not null default pg_current_xact_id()`.execute(db)
  await sql`create index events_tx_id_idx on events (tx, id)`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return
  await sql`drop function if exists pennon_reserve`.execute(db)
  await sql`drop index if exists events_tx_id_idx`.execute(db)
  await sql`alter table events drop column if exists tx`.execute(db)
  for (const [sequence, counter, table] of [
    ['event_ids', 'event_id', 'events'],
    ['segment_ids', 'segment_id', 'segments'],
  ] as const) {
    await sql`insert into counters (name, value) select ${counter}, coalesce(max(id), 0) from ${sql.table(table)}`.execute(db)
    await sql`drop sequence if exists ${sql.id(sequence)}`.execute(db)
  }
}

// A reservation in a counter (db/counters.ts once had reserveUpTo; migration 0035 drops it) in one round trip: a shared advisory
// lock for the session first (always before the row: a holder of it exclusively may wait on the
// row), then the row, committed without waiting for the log flush, so the row is held for this
// statement alone. The lock stays with the session until released; an error releases it.
export async function createReserveFunction(db: Kysely<any>): Promise<void> {
  await sql`create function pennon_reserve(counter text, wanted bigint, ceiling bigint, lock_key bigint, out before bigint, out reserved bigint)
    language plpgsql as $$
    begin
      perform pg_advisory_lock_shared(lock_key);
      begin
        perform set_config('synchronous_commit', 'off', true);
        select value into before from counters where name = counter for update;
        if not found then raise exception 'counter % is missing', counter; end if;
        update counters set value = greatest(before, least(before + wanted, ceiling)) where name = counter returning value - before into reserved;
      exception when others then
        perform pg_advisory_unlock_shared(lock_key);
        raise;
      end;
    end $$`.execute(db)
}
