// Profiling harness (not a bench): one operation of one saver in a loop, for `node --cpu-prof`.
// OP=put|getTuple|getTupleById|list|putWrites  SAVER=ours|official  N=count
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { uuid6, type BaseCheckpointSaver, type Checkpoint } from "@langchain/langgraph-checkpoint";
import { SqliteSaver as OfficialSaver } from "@langchain/langgraph-checkpoint-sqlite";
import type { RunnableConfig } from "@langchain/core/runnables";
import { SqliteSaver } from "../checkpointers/index.js";

const OP = process.env.OP ?? "put";
const N = Number(process.env.N ?? 20000);
const dir = mkdtempSync(join(tmpdir(), "prof-ops-"));
let saver: BaseCheckpointSaver;
let close: () => void;
if (process.env.SAVER === "official") {
  const db = new Database(join(dir, "o.db"));
  saver = new OfficialSaver(db);
  close = () => db.close();
} else {
  const ours = SqliteSaver.create({ path: join(dir, "ours.db") });
  saver = ours;
  close = () => ours.close();
}
function agentCheckpoint(step: number): { checkpoint: Checkpoint; newVersions: Record<string, number> } {
  const versions = { __start__: 1, messages: step + 1, counter: step + 1, "branch:to:agent": step + 1, context: 1 };
  const messages = Array.from({ length: 4 }, (_, i) => ({ role: i % 2 ? "ai" : "user", content: `message ${i} of step ${step}: ${"lorem ipsum ".repeat(8)}` }));
  return {
    checkpoint: {
      v: 4, id: uuid6(step), ts: new Date().toISOString(),
      channel_values: { __start__: { input: "hi" }, messages, counter: step, "branch:to:agent": null, context: { user: "ann", tz: "UTC", tags: ["a", "b"] } },
      channel_versions: versions, versions_seen: { agent: { "branch:to:agent": step }, __input__: {} },
    },
    newVersions: step === 0 ? versions : { messages: step + 1, counter: step + 1, "branch:to:agent": step + 1 },
  };
}
const meta = (i: number) => ({ source: "loop" as const, step: i, parents: {} });
let config: RunnableConfig = { configurable: { thread_id: "t", checkpoint_ns: "" } };
const ids: RunnableConfig[] = [];
const fill = OP === "list" ? 200 : OP === "put" ? 0 : 2000;
for (let i = 0; i < fill; i++) {
  const { checkpoint, newVersions } = agentCheckpoint(i);
  config = await saver.put(config, checkpoint, meta(i), newVersions);
  ids.push(config);
}
const inputs = OP === "put" ? Array.from({ length: N }, (_, i) => agentCheckpoint(i)) : [];
const start = performance.now();
const cpu0 = process.cpuUsage();
let n = N;
if (OP === "put") {
  for (let i = 0; i < N; i++) { const x = inputs[i]!; config = await saver.put(config, x.checkpoint, meta(i), x.newVersions); }
} else if (OP === "getTuple") {
  for (let i = 0; i < N; i++) await saver.getTuple({ configurable: { thread_id: "t" } });
} else if (OP === "getTupleById") {
  for (let i = 0; i < N; i++) await saver.getTuple(ids[(i * 7919) % ids.length]!);
} else if (OP === "putWrites") {
  for (let i = 0; i < N; i++) await saver.putWrites(config, [["messages", [{ role: "ai", content: `write ${i}` }]], ["counter", i]], `task-${i}`);
} else if (OP === "list") {
  n = Math.max(1, Math.floor(N / 100));
  for (let i = 0; i < n; i++) { let c = 0; for await (const _ of saver.list({ configurable: { thread_id: "t" } })) c++; if (c !== 200) throw new Error(String(c)); }
}
const ms = performance.now() - start;
const cpu = process.cpuUsage(cpu0);
process.stdout.write(`${process.env.SAVER ?? "ours"} ${OP}: ${((n * 1000) / ms).toFixed(0)}/s (${(ms * 1000 / n).toFixed(1)} µs each, ${((cpu.user + cpu.system) / n).toFixed(1)} µs cpu)\n`);
close();
rmSync(dir, { recursive: true, force: true });
