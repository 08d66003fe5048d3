/**
 * {@link SharedLimitStore} on PostgreSQL: every operation is one statement on the schema's `limit_*` tables (see
 * postgres-limits-schema.ts), timed by the server's clock, so processes on several machines with skewed clocks still
 * agree. A freed slot is announced with NOTIFY on the schema's "limits" channel; waiters also poll slowly, as a
 * safety net for a lost notification or a crashed holder's slot running out.
 * @module
 */
import { randomUUID } from "node:crypto";
import { migrateOnce, notificationChannel, type PostgresDatabase } from "../db/postgres/index.js";
import { PG_LIMITS_SCHEMA } from "./postgres-limits-schema.js";
import type { BreakerAdmission, HeldSlot, SharedBreakerShape, SharedBucketShape, SharedLimitStore } from "./shared-limits.js";

/** Options of {@link PostgresLimitStore}. */
export interface PostgresLimitStoreOptions {
  /** How long a slot outlives its holder's last renewal (a crashed process's slot frees itself after this). @default 30000 */
  slotLeaseMs?: number;
  /** How often a waiter for a slot looks again without a notification. @default 2000 */
  slotPollMs?: number;
  /** How long a half-open probe may take before another process may probe instead (its process may have died). @default 60000 */
  probeLeaseMs?: number;
}

// A float refill can leave 0.9999999 of a token; count that as one (as the process-local TokenBucket does).
const AVAILABLE = `LEAST($3::float8, b.tokens + GREATEST(0, EXTRACT(EPOCH FROM excluded.refilled_at - b.refilled_at)::float8) * $2::float8)`;

// `excluded.refilled_at` is the server's now, read once before any wait for the row's lock; a writer that got the
// lock first with a later now keeps its time (GREATEST), so time never runs backwards and no token is made twice.
const TAKE_TOKEN = `
INSERT INTO limit_buckets AS b (key, tokens, refilled_at, granted) VALUES ($1, $3::float8 - 1, clock_timestamp(), true)
ON CONFLICT (key) DO UPDATE SET
  tokens = ${AVAILABLE} - CASE WHEN ${AVAILABLE} >= 1 - 1e-9 THEN 1 ELSE 0 END,
  refilled_at = GREATEST(b.refilled_at, excluded.refilled_at),
  granted = ${AVAILABLE} >= 1 - 1e-9
RETURNING granted, tokens`;

// A free slot number is picked at random (fewer collisions between processes); the insert takes it only if it is
// still free when the row lock is had. No row and free > 0: another process was faster, try again.
const TRY_SLOT = `
WITH free AS (
  SELECT g.n FROM generate_series(0, $2::int - 1) AS g(n)
  WHERE NOT EXISTS (SELECT 1 FROM limit_slots s WHERE s.key = $1 AND s.n = g.n AND s.expires_at > clock_timestamp())
  ORDER BY random() LIMIT 1
), taken AS (
  INSERT INTO limit_slots AS s (key, n, holder, expires_at)
  SELECT $1, free.n, $3, clock_timestamp() + $4::float8 * interval '1 millisecond' FROM free
  ON CONFLICT (key, n) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
  WHERE s.expires_at <= clock_timestamp()
  RETURNING n
)
SELECT (SELECT n FROM taken) AS n, (SELECT count(*) FROM free)::int AS free`;

const RENEW_SLOT = `UPDATE limit_slots SET expires_at = clock_timestamp() + $4::float8 * interval '1 millisecond'
WHERE key = $1 AND n = $2 AND holder = $3`;

// The NOTIFY is sent when this statement commits, so a woken waiter finds the slot free.
const RELEASE_SLOT = `WITH freed AS (DELETE FROM limit_slots WHERE key = $1 AND n = $2 AND holder = $3 RETURNING key)
SELECT pg_notify($4, key) FROM freed`;

const READ_BREAKER = `
SELECT failures, opened_at IS NOT NULL AS open, probe_until IS NOT NULL AND probe_until > clock_timestamp() AS probing,
  GREATEST(0, $2::float8 - EXTRACT(EPOCH FROM clock_timestamp() - opened_at)::float8 * 1000) AS retry_in_ms
FROM limit_breakers WHERE key = $1`;

const CLAIM_PROBE = `
UPDATE limit_breakers SET probe_token = $3, probe_until = clock_timestamp() + $4::float8 * interval '1 millisecond'
WHERE key = $1 AND opened_at IS NOT NULL AND opened_at + $2::float8 * interval '1 millisecond' <= clock_timestamp()
  AND (probe_until IS NULL OR probe_until <= clock_timestamp())
RETURNING failures`;

const RECORD_SUCCESS = `UPDATE limit_breakers SET failures = 0, opened_at = NULL, probe_token = NULL, probe_until = NULL
WHERE key = $1 AND (failures > 0 OR opened_at IS NOT NULL OR probe_token IS NOT NULL)`;

// A failed probe opens the circuit again (a new cool-down); any failure at or past the threshold (re)opens it.
const RECORD_FAILURE = `
INSERT INTO limit_breakers AS b (key, failures, opened_at) VALUES ($1, 1, CASE WHEN $2::int <= 1 THEN clock_timestamp() END)
ON CONFLICT (key) DO UPDATE SET failures = b.failures + 1,
  opened_at = CASE WHEN b.probe_token = $3::text OR b.failures + 1 >= $2::int THEN clock_timestamp() ELSE b.opened_at END,
  probe_token = CASE WHEN b.probe_token = $3::text THEN NULL ELSE b.probe_token END,
  probe_until = CASE WHEN b.probe_token = $3::text THEN NULL ELSE b.probe_until END`;

const FREE_PROBE = `UPDATE limit_breakers SET probe_token = NULL, probe_until = NULL WHERE key = $1 AND probe_token = $2`;

/** Token buckets, concurrency slots and breakers in a PostgreSQL schema, shared by every process using it. */
export class PostgresLimitStore implements SharedLimitStore {
  readonly db: PostgresDatabase;
  readonly #migrate: () => Promise<void>;
  readonly #slotLeaseMs: number;
  readonly #slotPollMs: number;
  readonly #probeLeaseMs: number;
  readonly #channel: string;
  /** Wake-ups of this process's slot waiters, by key. */
  readonly #waiters = new Map<string, Set<() => void>>();
  #listening: Promise<unknown> | undefined;

  /** A store on `db`; its tables are created or migrated by {@link PostgresLimitStore.setup} (or the first operation). */
  constructor(db: PostgresDatabase, options: PostgresLimitStoreOptions = {}) {
    this.db = db;
    this.#migrate = migrateOnce(db, PG_LIMITS_SCHEMA);
    this.#slotLeaseMs = options.slotLeaseMs ?? 30_000;
    this.#slotPollMs = options.slotPollMs ?? 2000;
    this.#probeLeaseMs = options.probeLeaseMs ?? 60_000;
    this.#channel = notificationChannel(db.schema, "limits");
  }

  /** Creates or migrates the limit tables once; later calls cost nothing. */
  setup(): Promise<void> {
    return this.#migrate();
  }

  async takeToken(key: string, bucket: SharedBucketShape): Promise<number> {
    await this.setup();
    const { rows } = await this.db.query<{ granted: boolean; tokens: number }>(TAKE_TOKEN, [key, bucket.ratePerSecond, bucket.burst]);
    const row = rows[0];
    if (row === undefined || row.granted) return 0;
    return Math.max(1, Math.ceil(((1 - row.tokens) * 1000) / bucket.ratePerSecond));
  }

  async tryHoldSlot(key: string, limit: number): Promise<HeldSlot | "full" | "contended"> {
    await this.setup();
    const holder = randomUUID();
    const { rows } = await this.db.query<{ n: number | null; free: number }>(TRY_SLOT, [key, limit, holder, this.#slotLeaseMs]);
    const row = rows[0];
    if (row === undefined || row.n === null) return (row?.free ?? 0) > 0 ? "contended" : "full";
    return this.#held(key, row.n, holder);
  }

  slotFreed(key: string, signal?: AbortSignal): { ready: Promise<void>; freed: Promise<void> } {
    const ready = (this.#listening ??= this.db.notifications.listen(this.#channel, {
      onMessage: (freedKey) => this.#wake(freedKey),
      onGap: () => { for (const key of [...this.#waiters.keys()]) this.#wake(key); },
    })).then(() => undefined);
    const freed = new Promise<void>((resolve) => {
      const set = this.#waiters.get(key) ?? new Set();
      this.#waiters.set(key, set);
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        set.delete(done);
        if (set.size === 0 && this.#waiters.get(key) === set) this.#waiters.delete(key);
        resolve();
      };
      const timer = setTimeout(done, this.#slotPollMs);
      set.add(done);
      signal?.addEventListener("abort", done, { once: true });
      if (signal?.aborted) done();
    });
    return { ready, freed };
  }

  async admit(key: string, shape: SharedBreakerShape): Promise<BreakerAdmission> {
    await this.setup();
    const { rows } = await this.db.query<{ failures: number; open: boolean; probing: boolean; retry_in_ms: number }>(READ_BREAKER, [key, shape.cooldownMs]);
    const row = rows[0];
    if (row === undefined || !row.open) return { admitted: true, probe: undefined, consecutiveFailures: row?.failures ?? 0 };
    if (row.probing) return { admitted: false, consecutiveFailures: row.failures, retryInMs: undefined };
    if (row.retry_in_ms > 0) return { admitted: false, consecutiveFailures: row.failures, retryInMs: Math.ceil(row.retry_in_ms) };
    const token = randomUUID();
    const claimed = await this.db.query<{ failures: number }>(CLAIM_PROBE, [key, shape.cooldownMs, token, this.#probeLeaseMs]);
    const probe = claimed.rows[0];
    // Another process became the probe between the read and the claim.
    if (probe === undefined) return { admitted: false, consecutiveFailures: row.failures, retryInMs: undefined };
    return { admitted: true, probe: token, consecutiveFailures: probe.failures };
  }

  async record(
    key: string, shape: SharedBreakerShape, outcome: "success" | "failure" | "neutral", admission: { probe: string | undefined; consecutiveFailures: number },
  ): Promise<void> {
    if (outcome === "success") {
      // A healthy tool's success writes nothing: no failures were seen at admission and this call was no probe.
      if (admission.consecutiveFailures > 0 || admission.probe !== undefined) await this.db.query(RECORD_SUCCESS, [key]);
    } else if (outcome === "failure") {
      await this.db.query(RECORD_FAILURE, [key, shape.failureThreshold, admission.probe ?? null]);
    } else if (admission.probe !== undefined) {
      await this.db.query(FREE_PROBE, [key, admission.probe]);
    }
  }

  #held(key: string, n: number, holder: string): HeldSlot {
    // Renewed while held, so only a holder that stopped (crashed, frozen, cut off) loses its slot to the lease.
    const renew = setInterval(() => {
      this.db.query(RENEW_SLOT, [key, n, holder, this.#slotLeaseMs]).catch(() => undefined);
    }, Math.max(50, Math.floor(this.#slotLeaseMs / 3)));
    renew.unref();
    let released: Promise<void> | undefined;
    return {
      key,
      release: () => (released ??= (async () => {
        clearInterval(renew);
        await this.db.query(RELEASE_SLOT, [key, n, holder, this.#channel]);
      })()),
    };
  }

  #wake(key: string): void {
    for (const wake of [...(this.#waiters.get(key) ?? [])]) wake();
  }
}
