// The one LISTEN connection of a process: hears NOTIFYs committed by other connections, keeps schemas apart, and
// after its connection is killed reconnects, listens again and tells its listeners they may have missed some.
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { parseDatabaseTarget, type PostgresTarget } from "../../../src/db/database-target.js";
import { notificationChannel, PostgresDatabase } from "../../../src/db/postgres/index.js";
import { useTestSchema, withClient } from "../../helpers/postgres.js";

const schema = useTestSchema(import.meta.url);
const opened: PostgresDatabase[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((db) => db.close()));
});

function open(url = schema.url): PostgresDatabase {
  const db = new PostgresDatabase(parseDatabaseTarget(url, {}) as PostgresTarget);
  opened.push(db);
  return db;
}

async function notify(channel: string, payload: string): Promise<void> {
  await withClient((client) => client.query("SELECT pg_notify($1, $2)", [channel, payload]));
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await sleep(10);
  expect(check()).toBe(true);
}

describe("PostgresNotifications", () => {
  it("names a channel per schema and topic, fixed length, the same as SQL computes it", async () => {
    const a = notificationChannel("a_schema", "runs");
    expect(a).toMatch(/^agentrt_runs_[0-9a-f]{16}$/);
    expect(notificationChannel("b_schema", "runs")).not.toBe(a);
    expect(notificationChannel("x".repeat(63), "chunks").length).toBeLessThan(64);
    const sql = await withClient((client) => client.query<{ c: string }>("SELECT 'agentrt_runs_' || left(md5('a_schema'), 16) AS c"));
    expect(sql.rows[0]?.c).toBe(a);
    expect(() => notificationChannel("s", "Runs; DROP")).toThrow(TypeError);
  });

  it("hears a NOTIFY committed by another connection once LISTEN resolved, and nothing after unlisten", async () => {
    const db = open();
    const channel = notificationChannel(schema.name, "runs");
    const heard: string[] = [];
    const unlisten = await db.notifications.listen(channel, { onMessage: (payload) => heard.push(payload) });
    await notify(channel, "r1 QUEUED");
    await notify(notificationChannel(schema.fresh().name, "runs"), "other schema");
    await until(() => heard.length >= 1);
    await sleep(50);
    expect(heard).toEqual(["r1 QUEUED"]);
    await unlisten();
    await notify(channel, "r2 QUEUED");
    await sleep(100);
    expect(heard).toEqual(["r1 QUEUED"]);
  });

  it("reconnects after its connection is terminated, reports a gap, and hears again", async () => {
    const db = open();
    const channel = notificationChannel(schema.name, "runs");
    const heard: string[] = [];
    let gaps = 0;
    await db.notifications.listen(channel, { onMessage: (payload) => heard.push(payload), onGap: () => gaps++ });
    const killed = await withClient((client) =>
      // Only this schema's listener: other files' workers listen on the same server at the same time.
      client.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'agentrt-listen' AND query LIKE '%' || $1 || '%' AND pid <> pg_backend_pid()", [channel]));
    expect(killed.rowCount).toBeGreaterThan(0);
    await until(() => gaps >= 1);
    await until(() => db.notifications.connected);
    await notify(channel, "after");
    await until(() => heard.includes("after"));
  });

  it("closes without hanging the process and ignores listens after close", async () => {
    const db = open();
    await db.notifications.listen(notificationChannel(schema.name, "runs"), { onMessage: () => undefined });
    await db.close();
    await db.notifications.listen(notificationChannel(schema.name, "runs"), { onMessage: () => undefined });
    expect(db.notifications.connected).toBe(false);
  });
});
