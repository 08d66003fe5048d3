// `agentrt run` on a full disk: one line naming STORAGE_FULL and exit 2 (a storage error), not an internal error with
// a stack trace. The database lives on a tmpfs in the CLI's own mount namespace, filled up before the command runs
// (see test/server/disk-full.int.test.ts for why a tmpfs, and test/helpers/tmpfs.ts for when it is skipped).
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { canMountTmpfs } from "../helpers/tmpfs.js";

const bin = fileURLToPath(new URL("../../src/cli/bin.ts", import.meta.url));
const graph = fileURLToPath(new URL("../../graphs/city_weather.ts", import.meta.url));

describe.skipIf(!canMountTmpfs())("agentrt on a full disk (tmpfs in a mount namespace)", () => {
  it("agentrt run answers one line with STORAGE_FULL and exit 2", () => {
    const dir = mkdtempSync(join(tmpdir(), "agentrt-cli-full-"));
    const config = join(dir, "langgraph.json");
    writeFileSync(config, JSON.stringify({ graphs: { city_weather: `${graph}:graph` } }));
    const mountpoint = mkdtempSync(join(tmpdir(), "agentrt-cli-tmpfs-"));
    // The first command makes the file (and its tables); the ballast then takes every free byte.
    const script = [
      'mount -t tmpfs -o size=4m tmpfs "$1" || exit 99',
      '"$2" --import tsx "$3" run city_weather --message "weather in Paris" --queue --db "$1/agentrt.db" >/dev/null || exit 98',
      'dd if=/dev/zero of="$1/ballast" bs=64k 2>/dev/null',
      'exec "$2" --import tsx "$3" run city_weather --message "weather in Paris" --db "$1/agentrt.db"',
    ].join("\n");
    const done = spawnSync("unshare", ["-m", "sh", "-c", script, "sh", mountpoint, process.execPath, bin], {
      env: { ...process.env, AGENTRT_CONFIG: config }, encoding: "utf8",
    });
    expect(done.stderr.trim().split("\n")).toEqual([expect.stringMatching(/^agentrt run: [^\n]*\[STORAGE_FULL\]$/)]);
    expect(done.status).toBe(2);
  });
});
