// Round trips to PostgreSQL, counted at the driver: every pg.Client#query call is one (a pool.query is one
// client query; BEGIN and COMMIT are one each). Counting is always on once installed; read it around an op.
import pg from "pg";

let count = 0;
let installed = false;

/** Wraps pg's Client.prototype.query (once) so every query any pool or client makes is counted. */
export function countRoundTrips(): void {
  if (installed) return;
  installed = true;
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function counted(this: pg.Client, ...args: unknown[]) {
    count += 1;
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof original;
}

/** Round trips per call of `op`, averaged over `calls` calls (made one after another). */
export async function roundTripsPer(calls: number, op: (i: number) => Promise<unknown>): Promise<number> {
  const before = count;
  for (let i = 0; i < calls; i++) await op(i);
  return Number(((count - before) / calls).toFixed(2));
}
