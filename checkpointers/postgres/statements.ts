/**
 * The SQL of the PostgreSQL saver. Every write is one statement (data-modifying CTEs and `unnest` of array
 * parameters instead of one statement per row), every read of whole tuples is one statement (values and writes
 * aggregated into arrays per checkpoint row), so each call costs one round trip.
 * @module
 */

/** A named statement: pg prepares it once per connection and then sends only its parameters. */
export interface NamedSql {
  name: string;
  text: string;
}

/**
 * $1 thread, $2 ns, $3 id, $4 parent id, $5 skeleton JSON, $6 metadata type, $7 metadata JSON (or null),
 * $8 metadata bytes (or null), $9..$12 the changed channels' channel, version, type, value arrays.
 */
export const PUT: NamedSql = {
  name: "agentrt_checkpoints_put_v1",
  text: `WITH blobs AS (
      INSERT INTO checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, value)
      SELECT $1, $2, u.channel, u.version, u.type, u.value
        FROM unnest($9::text[], $10::text[], $11::text[], $12::bytea[]) AS u(channel, version, type, value)
      ON CONFLICT DO NOTHING
    )
    INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata_type, metadata, metadata_bytes)
    VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7::jsonb, $8)
    ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id) DO UPDATE SET
      parent_checkpoint_id = excluded.parent_checkpoint_id, checkpoint = excluded.checkpoint,
      metadata_type = excluded.metadata_type, metadata = excluded.metadata, metadata_bytes = excluded.metadata_bytes`,
};

/**
 * $1 thread, $2 ns, $3 checkpoint id, $4 task id, $5 task path, $6..$9 idx, channel, type, value arrays.
 * Special channels (idx < 0: errors, interrupts) replace what is stored; other writes keep the first.
 */
export const PUT_WRITES: NamedSql = {
  name: "agentrt_checkpoints_put_writes_v1",
  text: `INSERT INTO checkpoint_writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value, task_path)
    SELECT $1, $2, $3, $4, u.idx, u.channel, u.type, u.value, $5
      FROM unnest($6::int[], $7::text[], $8::text[], $9::bytea[]) AS u(idx, channel, type, value)
    ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx) DO UPDATE SET
      channel = excluded.channel, type = excluded.type, value = excluded.value, task_path = excluded.task_path
    WHERE excluded.idx < 0`,
};

/** $1 thread: its writes, values and checkpoints, in one statement. */
export const DELETE_THREAD: NamedSql = {
  name: "agentrt_checkpoints_delete_thread_v1",
  text: `WITH w AS (DELETE FROM checkpoint_writes WHERE thread_id = $1), b AS (DELETE FROM checkpoint_blobs WHERE thread_id = $1)
    DELETE FROM checkpoints WHERE thread_id = $1`,
};

/** $1 the new thread id, $2 the thread copied; a key already taken fails the whole statement. */
export const COPY_THREAD: NamedSql = {
  name: "agentrt_checkpoints_copy_thread_v1",
  text: `WITH c AS (
      INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata_type, metadata, metadata_bytes)
      SELECT $1, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata_type, metadata, metadata_bytes FROM checkpoints WHERE thread_id = $2
    ), b AS (
      INSERT INTO checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, value)
      SELECT $1, checkpoint_ns, channel, version, type, value FROM checkpoint_blobs WHERE thread_id = $2
    )
    INSERT INTO checkpoint_writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value, task_path)
    SELECT $1, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value, task_path FROM checkpoint_writes WHERE thread_id = $2`,
};

/** A tuple row: the checkpoint, its values and writes as parallel arrays, and pre-v4 pending sends. */
export interface TupleRow {
  thread_id: string;
  checkpoint_ns: string;
  checkpoint_id: string;
  parent_checkpoint_id: string | null;
  /** The skeleton, parsed by the driver (JSONB). */
  checkpoint: unknown;
  metadata_type: string;
  /** JSONB metadata as text (the codec decides how to revive it). */
  metadata: string | null;
  metadata_bytes: Buffer | null;
  blob_channels: string[] | null;
  blob_types: string[] | null;
  blob_values: (Buffer | null)[] | null;
  write_tasks: string[] | null;
  write_channels: string[] | null;
  write_types: string[] | null;
  write_values: (Buffer | null)[] | null;
  send_types: string[] | null;
  send_values: (Buffer | null)[] | null;
}

/**
 * Whole tuples of the checkpoint rows `selection` picks (a SELECT of `checkpoints` rows), newest first. Values
 * come through the skeleton's `channel_versions`; writes in `writesSortKey` order (task path, task id, idx;
 * code point order through the "C" collation); a pre-v4 checkpoint also gets its parent's TASKS writes.
 * The blob lookup is a LATERAL subquery with LIMIT 1 so it stays one primary-key probe per channel: joined
 * plainly, the planner (guessing 100 rows from jsonb_each_text) hashes and scans every blob of the table.
 */
export function tupleSql(selection: string): string {
  return `WITH c AS (${selection})
    SELECT c.thread_id, c.checkpoint_ns, c.checkpoint_id, c.parent_checkpoint_id, c.checkpoint, c.metadata_type,
           c.metadata::text AS metadata, c.metadata_bytes,
           b.channels AS blob_channels, b.types AS blob_types, b.vals AS blob_values,
           w.tasks AS write_tasks, w.channels AS write_channels, w.types AS write_types, w.vals AS write_values,
           s.types AS send_types, s.vals AS send_values
      FROM c
      LEFT JOIN LATERAL (
        SELECT array_agg(v.channel) AS channels, array_agg(bl.type) AS types, array_agg(bl.value) AS vals
          FROM jsonb_each_text(c.checkpoint -> 'channel_versions') AS v(channel, version)
          CROSS JOIN LATERAL (
            SELECT bl.type, bl.value FROM checkpoint_blobs bl
             WHERE bl.thread_id = c.thread_id AND bl.checkpoint_ns = c.checkpoint_ns AND bl.channel = v.channel AND bl.version = v.version
             LIMIT 1
          ) bl
      ) b ON true
      LEFT JOIN LATERAL (
        SELECT array_agg(x.task_id ORDER BY x.task_path, x.task_id, x.idx) AS tasks,
               array_agg(x.channel ORDER BY x.task_path, x.task_id, x.idx) AS channels,
               array_agg(x.type ORDER BY x.task_path, x.task_id, x.idx) AS types,
               array_agg(x.value ORDER BY x.task_path, x.task_id, x.idx) AS vals
          FROM checkpoint_writes x
         WHERE x.thread_id = c.thread_id AND x.checkpoint_ns = c.checkpoint_ns AND x.checkpoint_id = c.checkpoint_id
      ) w ON true
      LEFT JOIN LATERAL (
        SELECT array_agg(y.type ORDER BY y.task_path, y.task_id, y.idx) AS types,
               array_agg(y.value ORDER BY y.task_path, y.task_id, y.idx) AS vals
          FROM checkpoint_writes y
         WHERE (c.checkpoint ->> 'v')::numeric < 4 AND c.parent_checkpoint_id IS NOT NULL
           AND y.thread_id = c.thread_id AND y.checkpoint_ns = c.checkpoint_ns AND y.checkpoint_id = c.parent_checkpoint_id
           AND y.channel = '__pregel_tasks'
      ) s ON true
     ORDER BY c.checkpoint_id DESC, c.thread_id DESC, c.checkpoint_ns DESC`;
}

/** $1 thread, $2 ns: the newest checkpoint's tuple. */
export const TUPLE_LATEST: NamedSql = {
  name: "agentrt_checkpoints_tuple_latest_v1",
  text: tupleSql("SELECT * FROM checkpoints WHERE thread_id = $1 AND checkpoint_ns = $2 ORDER BY checkpoint_id DESC LIMIT 1"),
};

/** $1 thread, $2 ns, $3 id: that checkpoint's tuple. */
export const TUPLE_BY_ID: NamedSql = {
  name: "agentrt_checkpoints_tuple_by_id_v1",
  text: tupleSql("SELECT * FROM checkpoints WHERE thread_id = $1 AND checkpoint_ns = $2 AND checkpoint_id = $3"),
};
