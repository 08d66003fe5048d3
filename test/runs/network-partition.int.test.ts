// A network partition of one worker on PostgreSQL: `agentrt worker` w1 reaches the server through a proxy that is cut
// while w1 holds an approved ops_rollback with the rollback in flight, for longer than the lease. Worker w2 takes the
// run over, re-issues the rollback under its idempotency key and finishes it. When the network heals, what w1 sent
// meanwhile arrives late (the proxy held it, as TCP does): the fence must refuse all of it — checked from the
// database itself by a write audit (a trigger recording each row written with its writer's application_name).
import { afterEach, describe, expect, it } from "vitest";
import type { PostgresDatabase } from "../../src/db/postgres/index.js";
import { Runtime } from "../../src/runtime/index.js";
import { runtimeInternals } from "../../src/runtime/internals.js";
import { openWorld } from "../../src/testing/index.js";
import { useTestSchema } from "../helpers/postgres.js";
import { postgresProxy, type PostgresProxy } from "../helpers/tcp-proxy.js";
import { startWorker, until, type WorkerProcess } from "../helpers/worker-process.js";
import { auditedWrites, auditWrites } from "../helpers/write-audit.js";

const schema = useTestSchema(import.meta.url);
const MESSAGE = "Find out why the payments deploy failed; if it needs a rollback, ask me first; after the rollback confirm the service recovered.";
const CONFIG = new URL("../../langgraph.json", import.meta.url).pathname;
/** Short, so the partition outlasts it soon, yet long enough that a busy machine does not lose it before the cut. */
const LEASE_MS = "2000";
const PRELOADED = new URL("fixtures/preloaded-worker.ts", import.meta.url).pathname;

const started: WorkerProcess[] = [];
const opened: Runtime[] = [];
const proxies: PostgresProxy[] = [];
afterEach(async () => {
  for (const worker of started.splice(0)) worker.proc.kill("SIGKILL");
  for (const rt of opened.splice(0)) await rt.close();
  for (const proxy of proxies.splice(0)) await proxy.close();
});

const withApp = (url: string, app: string) => `${url}&application_name=${app}`;

describe("a worker cut off from PostgreSQL for longer than its lease", () => {
  it("loses its run to another worker, which finishes it; its late writes are all refused and it does not crash", async () => {
    const { name, url } = schema.fresh("p");
    const rt = Runtime.open({ db: url, config: CONFIG });
    opened.push(rt);
    const waiting = await rt.submit({ graph: "ops_rollback", message: MESSAGE, user: "alice" });
    const action = waiting.pending[0]!;
    expect((await rt.approve(waiting.run_id, { actionId: action.action_id, argsHash: action.args_hash, queue: true })).status).toBe("QUEUED");
    const { storage, runs } = runtimeInternals(rt);
    const rollback = async () => (await storage.ledger.list(waiting.run_id)).find((entry) => entry.tool === "rollback_deployment");
    expect(await rollback()).toBeUndefined(); // also creates the ledger's table, so the audit covers it
    await auditWrites(name);

    const proxy = await postgresProxy();
    proxies.push(proxy);
    // w1's rollback outlasts the test: it is in flight (intent written, platform not yet called) when the cut comes.
    const w1 = startWorker(withApp(proxy.url(url), "w1_partitioned"), ["--worker-id", "w1"], {
      script: PRELOADED,
      env: { AGENTRT_LEASE_MS: LEASE_MS, AGENTRT_SIM_LATENCY_MS: "60000" },
    });
    started.push(w1);
    await until("w1's claim", async () => (await rt.get(waiting.run_id)).status === "RUNNING", [w1]);
    // w2 starts meanwhile, but w1 heartbeats: it can take the run over only once w1 is cut off.
    const w2 = startWorker(withApp(url, "w2_takeover"), ["--worker-id", "w2", "--once"], {
      script: PRELOADED,
      env: { AGENTRT_LEASE_MS: LEASE_MS },
    });
    started.push(w2);
    await until("w1's rollback intent", async () => (await rollback())?.status === "pending", [w1, w2]);
    proxy.partition();

    // w1 gives its run up when its lease runs out by its own clock, and records the rollback as not performed: a write
    // held by the cut until the heal, just after w2's takeover (soon, before w1's new connections would time out).
    await until("w2's takeover", async () => (await runs.events(waiting.run_id)).some((e) => e.to === "RUNNING" && e.actor === "w2"), [w2]);
    proxy.heal();
    const w2Exit = await w2.exit;
    expect(w2Exit, w2Exit.stderr).toMatchObject({ code: 0 });

    // w1 stops claiming, settles what it was doing (its lost run) and exits cleanly: the partition did not crash it.
    w1.proc.kill("SIGTERM");
    const w1Exit = await w1.exit;
    expect(w1Exit, w1Exit.stderr).toMatchObject({ code: 0 });
    const events = await runs.events(waiting.run_id);
    expect(w1Exit.stdout, JSON.stringify(events)).toContain("worker w1: claimed 1, finished {}, lost 1");

    const run = await rt.get(waiting.run_id);
    expect(run.status).toBe("SUCCEEDED");
    expect(JSON.stringify(run.result)).toContain("Rolled back to rev-184");
    // The platform rolled back once (w1 never reached it); the ledger holds w2's attempt, with no failure of w1's.
    expect((await openWorld({ db: storage.db as PostgresDatabase }).snapshot()).calls.rollback_deployment).toBe(1);
    const entry = await rollback();
    expect(entry).toMatchObject({ status: "done", attempts: 2, externalOperationId: expect.stringMatching(/^op_deploy_/) });
    expect(entry?.error).toBeNull();

    const w1Claim = events.find((e) => e.to === "RUNNING" && e.actor === "w1");
    const w2Claim = events.find((e) => e.to === "RUNNING" && e.actor === "w2");
    expect(w2Claim?.fencingToken).toBeGreaterThan(w1Claim?.fencingToken ?? Infinity);
    expect(events.filter((e) => e.actor === "w1").map((e) => e.to)).toEqual(["RUNNING"]);

    // From the database: w1 wrote things before the takeover (not vacuous), nothing at all after w2's first write.
    const writes = await auditedWrites(name);
    const takeover = writes.find((w) => w.app === "w2_takeover");
    expect(takeover).toBeDefined();
    expect(writes.some((w) => w.app === "w1_partitioned" && w.id < takeover!.id && w.table === "tool_ledger")).toBe(true);
    // Its trace spans are its own account of what it tried (the rollback it gave up); no state is read from them.
    const late = writes.filter((w) => w.app === "w1_partitioned" && w.id > takeover!.id && w.table !== "spans");
    expect(late.map((w) => ({ table: w.table, op: w.op, row: w.row }))).toEqual([]);
  }, 60_000);
});
