/**
 * Counting driver (not a bench): `npx tsx bench/_checkpointer-pages.ts [puts]` prints the WAL pages (frames) one
 * put writes, for agentrt's SqliteSaver and the official one: sequential puts on one thread, then 32 writers at once
 * (each on its own thread, as `bench/checkpointer.ts` runs them). WAL auto-checkpoints are off, so every frame
 * a commit appends stays countable.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { uuid6, type BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { SqliteSaver as OfficialSaver } from "@langchain/langgraph-checkpoint-sqlite";
import type { RunnableConfig } from "@langchain/core/runnables";
import { SqliteSaver } from "../checkpointers/index.js";
import { agentCheckpoint } from "./_checkpointer-ops.js";

const PUTS = Number(process.argv[2] ?? 2000);
const WRITERS = 32;
const FRAME = 4096 + 24;
const dir = mkdtempSync(join(tmpdir(), "agentrt-put-pages-"));

function open(name: string, file: string): { saver: BaseCheckpointSaver; db: Database.Database; close(): void } {
  if (name === "official") {
    const db = new Database(file);
    const saver = new OfficialSaver(db);
    (saver as unknown as { setup(): void }).setup();
    db.pragma("wal_autocheckpoint = 0");
    return { saver, db, close: () => db.close() };
  }
  const saver = SqliteSaver.create({ path: file });
  saver.db.pragma("wal_autocheckpoint = 0");
  return { saver, db: saver.db, close: () => saver.close() };
}

const walBytes = (file: string) => statSync(`${file}-wal`).size;

async function sequential(name: string): Promise<number> {
  const file = join(dir, `${name}-seq.db`);
  const { saver, close } = open(name, file);
  let config: RunnableConfig = { configurable: { thread_id: "t", checkpoint_ns: "" } };
  const step = async (i: number) => {
    const { checkpoint, newVersions } = agentCheckpoint(i + 1);
    config = await saver.put(config, checkpoint, { source: "loop", step: i, parents: {} }, newVersions);
  };
  for (let i = 0; i < 50; i++) await step(i);
  const before = walBytes(file);
  for (let i = 50; i < 50 + PUTS; i++) await step(i);
  const pages = (walBytes(file) - before) / FRAME / PUTS;
  close();
  return pages;
}

async function concurrent(name: string): Promise<number> {
  const file = join(dir, `${name}-conc.db`);
  const { saver, close } = open(name, file);
  const parents = Array.from({ length: WRITERS }, (_, w) => ({ configurable: { thread_id: `w-${w}`, checkpoint_ns: "" } }) as RunnableConfig);
  const round = (r: number) =>
    Promise.all(
      parents.map(async (_, w) => {
        const { checkpoint } = agentCheckpoint(r + 1);
        parents[w] = await saver.put(parents[w] ?? {}, { ...checkpoint, id: uuid6(r * WRITERS + w) }, { source: "loop", step: r, parents: {} }, { messages: r + 1, counter: r + 1 });
      }),
    );
  for (let r = 0; r < 10; r++) await round(r);
  const before = walBytes(file);
  const rounds = Math.ceil(PUTS / WRITERS);
  for (let r = 10; r < 10 + rounds; r++) await round(r);
  const pages = (walBytes(file) - before) / FRAME / (rounds * WRITERS);
  close();
  return pages;
}

try {
  for (const name of ["ours", "official"]) {
    process.stdout.write(`${name.padEnd(8)} WAL pages per put: sequential ${(await sequential(name)).toFixed(2)}, ${WRITERS} writers ${(await concurrent(name)).toFixed(2)}\n`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
