import { mkdirSync, mkdtempSync, readdirSync, realpathSync, renameSync, rmSync, symlinkSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DirHandle } from "../../src/workspace/dir-handle.js";

let base: string;
let root: string;
let outside: string;

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "agentrt-dirhandle-")));
  root = join(base, "root");
  outside = join(base, "outside");
  mkdirSync(join(root, "a"), { recursive: true });
  mkdirSync(outside);
  symlinkSync(outside, join(root, "link"));
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

describe.each([
  { mode: "through /proc/self/fd", viaProc: true },
  { mode: "path-based fallback", viaProc: false },
])("DirHandle, $mode", ({ viaProc }) => {
  it("creates and opens folders below it and refuses a link on the way", async () => {
    const dir = await DirHandle.descend(await DirHandle.open(root, { viaProc }), ["a", "b"], true);
    await writeFile(dir.path("f.txt"), "x");
    await dir.close();
    expect(readdirSync(join(root, "a", "b"))).toEqual(["f.txt"]);
    await expect(DirHandle.descend(await DirHandle.open(root, { viaProc }), ["link", "c"], true)).rejects.toMatchObject({ code: "ELOOP" });
    await expect(DirHandle.open(join(root, "link"), { viaProc })).rejects.toMatchObject({ code: "ELOOP" });
    expect(readdirSync(outside)).toEqual([]);
  });

  it("keeps to the folder it opened when that folder's path is swapped for a link", async () => {
    const dir = await DirHandle.descend(await DirHandle.open(root, { viaProc }), ["a"]);
    renameSync(join(root, "a"), join(root, "a.moved"));
    symlinkSync(outside, join(root, "a"));
    try {
      if (viaProc) {
        expect(dir.raceFree).toBe(true);
        await writeFile(dir.path("f.txt"), "x");
        expect(readdirSync(join(root, "a.moved"))).toEqual(["f.txt"]);
      } else {
        // No descriptor-relative opens: the fallback notices the swap and refuses instead.
        expect(dir.raceFree).toBe(false);
        await expect(dir.verify()).rejects.toMatchObject({ code: "ELOOP" });
        await expect(dir.child("sub", true)).rejects.toMatchObject({ code: "ELOOP" });
      }
      expect(readdirSync(outside)).toEqual([]);
    } finally {
      await dir.close();
    }
  });
});
