// Cases run on SQLite (idempotent-create.test.ts) and PostgreSQL (idempotent-create.postgres.test.ts): a run create
// with an idempotency key, retried or raced, gives one run whose tools run once; another request under the key is
// refused with one line and stores nothing; another user's key is theirs.
import { expect, it } from "vitest";
import type { Runtime } from "../../src/runtime/index.js";
import { runtimeInternals } from "../../src/runtime/internals.js";
import { openWorld } from "../../src/testing/index.js";

const WEATHER = { messages: [{ role: "user", content: "Weather for Beijing, Shanghai and Shenzhen" }] };

const weatherCalls = async (rt: Runtime) => (await openWorld({ db: runtimeInternals(rt).storage.db }).snapshot()).calls.get_weather ?? 0;
const create = (rt: Runtime, user: string, key: string, input: unknown = WEATHER, thread?: string) =>
  rt.createRun({ graph: "city_weather", input, user, idempotency: { key }, ...(thread === undefined ? {} : { thread }) });

/** Registers the cases; `open` gives a runtime on an empty database of the backend. */
export function idempotentCreateCases(open: () => Promise<Runtime>): void {
  it("a retried create returns the first run, before and after it ran; its tools run once", async () => {
    const rt = await open();
    const first = await create(rt, "ann", "k-1");
    const retried = await create(rt, "ann", "k-1");
    expect(retried).toMatchObject({ replayed: true, behind: [], canceled: [] });
    expect(retried.run.runId).toBe(first.run.runId);
    expect((await rt.start(first.run.runId)).status).toBe("SUCCEEDED");
    const late = await create(rt, "ann", "k-1");
    expect(late.run).toMatchObject({ runId: first.run.runId, status: "SUCCEEDED" });
    expect(await rt.records.list({ userId: "ann" })).toHaveLength(1);
    expect(await weatherCalls(rt)).toBe(3);
  });

  it("a retried submit with the key shows the first run, executed once; racing submits give one run", async () => {
    const rt = await open();
    const submit = () => rt.submit({ graph: "city_weather", message: "Weather for Beijing, Shanghai and Shenzhen", user: "ann", idempotencyKey: "s-1" });
    const first = await submit();
    expect(first.status).toBe("SUCCEEDED");
    expect((await submit()).run_id).toBe(first.run_id);
    const queued = await Promise.all([1, 2, 3].map(() => rt.submit({ graph: "city_weather", message: "Weather for Paris", user: "ann", queue: true, idempotencyKey: "s-2" })));
    expect(new Set(queued.map((v) => v.run_id)).size).toBe(1);
    await expect(rt.submit({ graph: "city_weather", message: "Weather for Rome", user: "ann", idempotencyKey: "s-1" })).rejects.toMatchObject({ code: "IDEMPOTENCY_KEY_REUSED" });
    expect(await rt.records.list({ userId: "ann" })).toHaveLength(2);
    expect(await weatherCalls(rt)).toBe(3);
  });

  it("concurrent duplicate creates on one thread give one run, never canceled by its duplicates", async () => {
    const rt = await open();
    const thread = (await rt.submit({ graph: "city_weather", message: "Weather for Beijing", user: "ann" })).thread_id;
    const created = await Promise.all(Array.from({ length: 5 }, () =>
      rt.createRun({ graph: "city_weather", input: WEATHER, user: "ann", thread, multitask: "interrupt", idempotency: { key: "k-2" } })));
    const ids = new Set(created.map((c) => c.run.runId));
    expect(ids.size).toBe(1);
    expect(created.filter((c) => c.replayed !== true)).toHaveLength(1);
    const [runId] = [...ids];
    expect((await rt.get(runId!)).status).toBe("QUEUED");
    expect(await rt.records.list({ threadId: thread })).toHaveLength(2);
  });

  it("refuses the key with another request (one line, nothing stored); another user's same key is independent", async () => {
    const rt = await open();
    const first = await create(rt, "ann", "k-3");
    const other = { messages: [{ role: "user", content: "Weather for Paris" }] };
    const refused = create(rt, "ann", "k-3", other);
    await expect(refused).rejects.toMatchObject({ code: "IDEMPOTENCY_KEY_REUSED" });
    await expect(refused).rejects.toThrow(/^idempotency key "k-3" was used for another request \(run run_\S+\); use a new key for a new run$/);
    expect(await rt.records.list({ userId: "ann" })).toHaveLength(1);
    const bob = await create(rt, "bob", "k-3", other);
    expect(bob.replayed).not.toBe(true);
    expect(bob.run.runId).not.toBe(first.run.runId);
    await expect(create(rt, "ann", "bad key")).rejects.toMatchObject({ code: "BAD_INPUT" });
  });
}
