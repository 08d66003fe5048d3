// `agentrt run` on a full disk: one line naming STORAGE_FULL and exit 2 (a storage error), not an internal error with
// a stack trace. The database lives on a tmpfs in the CLI's own mount namespace, filled up before the command runs
// (see test/server/disk-full.int.test.ts for why a tmpfs, and test/helpers/tmpfs.ts for when it is skipped).
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { canMountTmpfs } from "../helpers/tmpfs.js";

const bin = fileURLToPath(new URL("../../src/cli/bin.ts", import.meta.url));
const graph = fileURLToPath(new URL("../../graphs/city_weather.ts", import.meta.url));
const require = createRequire(import.meta.url);

/**
 * Runs `agentrt run` on a database on a full tmpfs, in its own mount namespace: the first command makes the file,
 * then (with `held`) a process keeps it open, as a server would, and a ballast takes every free byte.
 */
function runOnFullDisk(held: boolean): { stderr: string; status: number | null } {
  const dir = mkdtempSync(join(tmpdir(), "agentrt-cli-full-"));
  const config = join(dir, "langgraph.json");
  writeFileSync(config, JSON.stringify({ graphs: { city_weather: `${graph}:graph` } }));
  const mountpoint = mkdtempSync(join(tmpdir(), "agentrt-cli-tmpfs-"));
  const hold = `const db = new (require(process.argv[1]))(process.argv[2]); db.pragma("schema_version"); setInterval(() => {}, 1000);`;
  const script = [
    'mount -t tmpfs -o size=4m tmpfs "$1" || exit 99',
    '"$2" --import tsx "$3" run city_weather --message "weather in Paris" --queue --db "$1/agentrt.db" >/dev/null || exit 98',
    // The holder's -wal and -shm files stay: the command then fails at its first write, not when it opens the file.
    held ? `"$2" -e '${hold}' "$4" "$1/agentrt.db" >/dev/null 2>&1 & holder=$!; until [ -e "$1/agentrt.db-shm" ]; do sleep 0.05; done` : "holder=",
    'dd if=/dev/zero of="$1/ballast" bs=64k 2>/dev/null',
    '"$2" --import tsx "$3" run city_weather --message "weather in Paris" --db "$1/agentrt.db"',
    'code=$?; [ -n "$holder" ] && kill "$holder"; exit "$code"',
  ].join("\n");
  const done = spawnSync("unshare", ["-m", "sh", "-c", script, "sh", mountpoint, process.execPath, bin, require.resolve("better-sqlite3")], {
    env: { ...process.env, AGENTRT_CONFIG: config }, encoding: "utf8",
  });
  return { stderr: done.stderr, status: done.status };
}

describe.skipIf(!canMountTmpfs())("agentrt on a full disk (tmpfs in a mount namespace)", () => {
  it("agentrt run answers one line with STORAGE_FULL and exit 2 when its first write fails", () => {
    const done = runOnFullDisk(true);
    expect(done.stderr.trim().split("\n")).toEqual([expect.stringMatching(/^agentrt run: database or disk is full[^\n]*\[STORAGE_FULL\]$/)]);
    expect(done.status).toBe(2);
  });

  it("and when the file cannot even be opened for want of room (its -shm file cannot be made)", () => {
    const done = runOnFullDisk(false);
    expect(done.stderr.trim().split("\n")).toEqual([expect.stringMatching(/^agentrt run: \/\S+\/agentrt\.db: [^\n]*\[STORAGE_FULL\]$/)]);
    expect(done.status).toBe(2);
  });
});
