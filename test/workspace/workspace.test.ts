import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync, existsSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ToolError } from "../../src/errors.js";
import { Workspace } from "../../src/workspace/workspace.js";

let base: string;
let root: string;
let secretDir: string;
let secretFile: string;

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "agentrt-ws-")));
  root = join(base, "workspaces");
  secretDir = join(base, "secret");
  mkdirSync(secretDir);
  secretFile = join(secretDir, "key.txt");
  writeFileSync(secretFile, "TOP SECRET");
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const refused = { code: "PATH_OUTSIDE_WORKSPACE" };

describe("Workspace", () => {
  it("writes and reads nested files, creating folders, and lists them", async () => {
    const ws = Workspace.forRun(root, "run_1");
    expect(await ws.write("notes/2026/summary.md", "# Findings\n")).toEqual({ path: "notes/2026/summary.md", bytes: 11 });
    await ws.write("./data.json", '{"a":1}');
    expect(await ws.read("notes/2026/summary.md")).toBe("# Findings\n");
    expect(await ws.read("notes/../data.json")).toBe('{"a":1}');
    expect(readFileSync(join(root, "run_1", "notes", "2026", "summary.md"), "utf8")).toBe("# Findings\n");
    expect(await ws.list()).toEqual([
      { path: "data.json", type: "file", size: 7 },
      { path: "notes", type: "directory", size: 0 },
    ]);
    expect((await ws.list("notes", { recursive: true })).map((e) => e.path)).toEqual(["notes/2026", "notes/2026/summary.md"]);
    await ws.write("data.json", "{}");
    expect(await ws.read("data.json")).toBe("{}");
    // No temp files are left behind by the atomic rename.
    expect(readdirSync(join(root, "run_1"))).toEqual(["data.json", "notes"]);
  });

  it("keeps runs apart", async () => {
    const a = Workspace.forRun(root, "run_a");
    const b = Workspace.forRun(root, "run_b");
    await a.write("shared.txt", "from a");
    await expect(b.read("shared.txt")).rejects.toMatchObject({ code: "WORKSPACE_FILE_NOT_FOUND" });
    await expect(b.read("../run_a/shared.txt")).rejects.toMatchObject(refused);
    expect(await b.list()).toEqual([]);
  });

  it("refuses ../ escapes before touching the disk", async () => {
    const ws = Workspace.forRun(root, "run_1");
    for (const path of ["../secret/key.txt", "..", "a/../../x", "a/b/../../../x", "../../secret/key.txt"]) {
      await expect(ws.read(path)).rejects.toMatchObject(refused);
      await expect(ws.write(path, "x")).rejects.toMatchObject(refused);
    }
    await expect(ws.list("..")).rejects.toMatchObject(refused);
    expect(readFileSync(secretFile, "utf8")).toBe("TOP SECRET");
    expect(existsSync(join(root, "x"))).toBe(false);
  });

  it("refuses absolute paths", async () => {
    const ws = Workspace.forRun(root, "run_1");
    for (const path of [secretFile, "/etc/passwd", "C:\\Windows\\win.ini", "\\\\server\\share"]) {
      await expect(ws.read(path)).rejects.toMatchObject(refused);
      await expect(ws.write(path, "x")).rejects.toMatchObject(refused);
    }
    await expect(ws.read("a\0b")).rejects.toMatchObject(refused);
  });

  it("refuses a symlinked file that points outside, for read and write", async () => {
    const ws = Workspace.forRun(root, "run_1");
    await ws.write("ok.txt", "ok");
    symlinkSync(secretFile, join(ws.dir, "link.txt"));
    const error = await ws.read("link.txt").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect(error).toMatchObject(refused);
    await expect(ws.write("link.txt", "pwned")).rejects.toMatchObject(refused);
    expect(readFileSync(secretFile, "utf8")).toBe("TOP SECRET");
  });

  it("refuses a symlinked directory that points outside, and writing through any symlinked parent", async () => {
    const ws = Workspace.forRun(root, "run_1");
    await ws.write("keep.txt", "x");
    symlinkSync(secretDir, join(ws.dir, "out"));
    await expect(ws.read("out/key.txt")).rejects.toMatchObject(refused);
    await expect(ws.list("out")).rejects.toMatchObject(refused);
    await expect(ws.write("out/new.txt", "pwned")).rejects.toMatchObject(refused);
    await expect(ws.write("out/deeper/new.txt", "pwned")).rejects.toMatchObject(refused);
    expect(existsSync(join(secretDir, "new.txt"))).toBe(false);
    expect(existsSync(join(secretDir, "deeper"))).toBe(false);

    // Even a link that stays inside may be read through, but never written through.
    await ws.write("real/file.txt", "inside");
    symlinkSync(join(ws.dir, "real"), join(ws.dir, "alias"));
    expect(await ws.read("alias/file.txt")).toBe("inside");
    await expect(ws.write("alias/file.txt", "x")).rejects.toMatchObject(refused);
    expect((await ws.list()).find((e) => e.path === "alias")).toEqual({ path: "alias", type: "symlink", size: 0 });
  });

  it("refuses a dangling link and a run directory that is itself a link", async () => {
    const ws = Workspace.forRun(root, "run_1");
    await ws.write("a.txt", "a");
    symlinkSync(join(base, "nowhere"), join(ws.dir, "dangling"));
    await expect(ws.read("dangling")).rejects.toMatchObject(refused);
    symlinkSync(secretDir, join(root, "run_evil"));
    await expect(Workspace.forRun(root, "run_evil").read("key.txt")).rejects.toMatchObject(refused);
    await expect(Workspace.forRun(root, "run_evil").write("x.txt", "x")).rejects.toMatchObject(refused);
  });

  it("resolve() returns the real path inside, and refuses the rest", async () => {
    const ws = Workspace.forRun(root, "run_1");
    expect(await ws.resolve("a/b.txt")).toBe(join(root, "run_1", "a", "b.txt"));
    await ws.write("a/b.txt", "x");
    expect(await ws.resolve("a/./b.txt")).toBe(join(root, "run_1", "a", "b.txt"));
    await expect(ws.resolve("../run_2")).rejects.toMatchObject(refused);
  });

  it("enforces the file and total size caps", async () => {
    const ws = Workspace.forRun(root, "run_1", { maxFileBytes: 10, maxTotalBytes: 25 });
    await expect(ws.write("big.txt", "x".repeat(11))).rejects.toMatchObject({ code: "WORKSPACE_LIMIT_EXCEEDED" });
    await ws.write("a.txt", "x".repeat(10));
    await ws.write("b.txt", "x".repeat(10));
    await expect(ws.write("c.txt", "x".repeat(10))).rejects.toMatchObject({ code: "WORKSPACE_LIMIT_EXCEEDED" });
    await ws.write("a.txt", "x".repeat(5));
    await ws.write("c.txt", "x".repeat(10));
    expect(await ws.totalBytes()).toBe(25);
    writeFileSync(join(ws.dir, "planted.txt"), "y".repeat(11));
    await expect(ws.read("planted.txt")).rejects.toMatchObject({ code: "WORKSPACE_LIMIT_EXCEEDED" });
  });

  it("refuses run ids that would name another directory, and reading folders as files", async () => {
    for (const id of ["", "..", "a/b", "../x", ".hidden", "a..b"]) {
      expect(() => Workspace.forRun(root, id)).toThrow(/run id/);
    }
    const ws = Workspace.forRun(root, "run_1");
    await ws.write("dir/f.txt", "x");
    await expect(ws.read("dir")).rejects.toMatchObject({ code: "WORKSPACE_FILE_NOT_FOUND" });
    await expect(ws.write("", "x")).rejects.toMatchObject(refused);
    await expect(ws.list("dir/f.txt")).rejects.toMatchObject({ code: "WORKSPACE_FILE_NOT_FOUND" });
  });
});
