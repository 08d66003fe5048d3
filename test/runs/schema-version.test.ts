// `agentrt worker` on a file of another schema version, through the CLI entry point.
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/index.js";
import { Runtime } from "../../src/runtime/index.js";
import { runCli } from "../helpers/cli.js";
import { tempDbPath } from "./helpers.js";

const CONFIG = join(fileURLToPath(new URL("../..", import.meta.url)), "langgraph.json");

/** A file with one queued run, made by this agentrt. */
async function fileWithQueuedRun(): Promise<string> {
  const path = tempDbPath();
  const rt = Runtime.open({ db: path, config: CONFIG });
  await rt.submit({ graph: "city_weather", message: "Weather for Beijing", queue: true });
  await rt.close();
  return path;
}

function contents(path: string): string {
  const db = openDatabase(path, { readonly: true });
  try {
    const tables = ["agentrt_schema", "runs", "run_events", "checkpoints"];
    return JSON.stringify(tables.map((t) => db.prepare(`SELECT * FROM ${t} ORDER BY rowid`).all()));
  } finally {
    db.close();
  }
}

function setRunsVersion(path: string, version: number): void {
  const db = openDatabase(path);
  db.prepare("UPDATE agentrt_schema SET version = ? WHERE module = 'runs'").run(version);
  db.close();
}

describe("agentrt worker on a file of another schema version", () => {
  it("refuses a file written by a newer agentrt: exit 2, DB_SCHEMA_TOO_NEW, nothing changed", async () => {
    const path = await fileWithQueuedRun();
    setRunsVersion(path, 99);
    const before = contents(path);
    const result = await runCli(["worker", "--once", "--db", path]);
    expect(result.code).toBe(2);
    expect(result.err).toContain("DB_SCHEMA_TOO_NEW");
    expect(result.err).toContain("schema version 99");
    expect(contents(path)).toBe(before);
  });

  it("stops a running worker when another process upgrades the file under it: exit 2, nothing written after", async () => {
    const path = tempDbPath();
    await Runtime.open({ db: path, config: CONFIG }).close();
    const worker = runCli(["worker", "--db", path, "--worker-id", "w"]);
    // Whether the upgrade lands before or after the worker's first poll, the worker must stop on it.
    await new Promise((resolve) => setTimeout(resolve, 300));
    setRunsVersion(path, 99);
    const before = contents(path);
    const result = await worker;
    expect(result.code).toBe(2);
    expect(result.err).toContain("DB_SCHEMA_TOO_NEW");
    expect(contents(path)).toBe(before);
  });

  it("refuses a file whose runs tables were not made by agentrt: exit 2, DB_CORRUPT", async () => {
    const path = tempDbPath();
    const db = openDatabase(path);
    db.exec("CREATE TABLE runs (id INTEGER PRIMARY KEY, note TEXT); INSERT INTO runs (note) VALUES ('theirs')");
    db.close();
    const result = await runCli(["worker", "--once", "--db", path]);
    expect(result.code).toBe(2);
    expect(result.err).toContain("DB_CORRUPT");
    const after = openDatabase(path, { readonly: true });
    expect(after.prepare("SELECT note FROM runs").all()).toEqual([{ note: "theirs" }]);
    after.close();
  });
});
