// durability "group" and process.exit(): writes a process queued are committed as it exits normally.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "agentrt-group-exit-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('SqliteSaver durability: "group" at process exit', () => {
  it("commits the queued puts when the process calls process.exit() right after them", () => {
    const db = join(dir, "exit.db");
    const child = fileURLToPath(new URL("./fixtures/group-exit.ts", import.meta.url));
    const result = spawnSync(process.execPath, ["--import", "tsx", child, db], { encoding: "utf8" });
    expect(result.status, result.stderr).toBe(0);
    const reader = new Database(db, { readonly: true });
    try {
      expect((reader.prepare("SELECT count(*) AS n FROM checkpoints").get() as { n: number }).n).toBe(5);
    } finally {
      reader.close();
    }
  });
});
