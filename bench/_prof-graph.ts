// Profiling harness (not a bench): the 3-node graph of the checkpointer bench on one saver, for `node --cpu-prof`.
// SAVER=ours|official  N=invocations
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { SqliteSaver as OfficialSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { SqliteSaver } from "../checkpointers/index.js";
import { threeNodeGraph } from "./_checkpointer-graphs.js";

const N = Number(process.env.N ?? 2000);
const dir = mkdtempSync(join(tmpdir(), "prof-graph-"));
const db = process.env.SAVER === "official" ? new Database(join(dir, "o.db")) : undefined;
const saver = db ? new OfficialSaver(db) : SqliteSaver.create({ path: join(dir, "ours.db") });
const run = threeNodeGraph(saver, "p");
for (let i = 0; i < 100; i++) await run(i);
const cpu0 = process.cpuUsage();
const start = performance.now();
for (let i = 100; i < N + 100; i++) await run(i);
const ms = performance.now() - start;
const cpu = process.cpuUsage(cpu0);
process.stdout.write(`${process.env.SAVER ?? "ours"} 3-node: ${((N * 1000) / ms).toFixed(0)} inv/s, ${((cpu.user + cpu.system) / N).toFixed(0)} µs cpu each\n`);
if (db) db.close(); else (saver as SqliteSaver).close();
rmSync(dir, { recursive: true, force: true });
