import { execFileSync } from "node:child_process";
import { linkSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Workspace } from "../../src/workspace/workspace.js";

let base: string;
let secretFile: string;
let ws: Workspace;
let server: Server | undefined;

beforeEach(async () => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "agentrt-ws-special-")));
  mkdirSync(join(base, "secret"));
  secretFile = join(base, "secret", "key.txt");
  writeFileSync(secretFile, "TOP SECRET");
  ws = Workspace.forRun(join(base, "workspaces"), "run_1");
  await ws.write("keep.txt", "x");
});
afterEach(async () => {
  await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
  server = undefined;
  rmSync(base, { recursive: true, force: true });
});

describe("Workspace and files that are not plain, single-named files", () => {
  it("writes a file whose name takes the file system's whole 255 bytes (its temp name is not longer)", async () => {
    const name = "文".repeat(85);
    await ws.write(name, "long");
    expect(await ws.read(name)).toBe("long");
    expect((await ws.list()).map((e) => e.path).sort()).toEqual(["keep.txt", name].sort());
  });

  it("refuses to read a hard link, whose other name may be outside", async () => {
    linkSync(secretFile, join(ws.dir, "notes.txt"));
    await expect(ws.read("notes.txt")).rejects.toMatchObject({
      code: "PATH_OUTSIDE_WORKSPACE",
      message: expect.stringContaining("2 names (hard links)") as unknown,
    });
  });

  it("replaces a hard link on write instead of writing through it", async () => {
    linkSync(secretFile, join(ws.dir, "notes.txt"));
    await ws.write("notes.txt", "mine");
    expect(readFileSync(secretFile, "utf8")).toBe("TOP SECRET");
    expect(await ws.read("notes.txt")).toBe("mine");
    expect(statSync(secretFile).nlink).toBe(1);
  });

  // The bound is the test's timeout: before the fix the open waited for a writer forever.
  it("refuses to read a FIFO without waiting for a writer", { timeout: 10_000 }, async () => {
    execFileSync("mkfifo", [join(ws.dir, "pipe")]);
    await expect(ws.read("pipe")).rejects.toMatchObject({
      code: "WORKSPACE_FILE_NOT_FOUND",
      message: expect.stringContaining("not a regular file") as unknown,
    });
    await expect(ws.write("pipe", "x")).rejects.toMatchObject({ code: "WORKSPACE_FILE_NOT_FOUND" });
    // A listing leaves it out rather than describing it as a file.
    expect((await ws.list()).map((e) => e.path)).toEqual(["keep.txt"]);
  });

  it("refuses to read a socket", async () => {
    const path = join(ws.dir, "sock");
    server = createServer();
    await new Promise<void>((resolve) => server?.listen(path, resolve));
    await expect(ws.read("sock")).rejects.toMatchObject({ code: "WORKSPACE_FILE_NOT_FOUND" });
  });

  it("names a folder read as a file, and a file used as a folder", async () => {
    await ws.write("dir/f.txt", "x");
    await expect(ws.read("dir")).rejects.toMatchObject({ code: "WORKSPACE_FILE_NOT_FOUND", message: expect.stringContaining("is a folder") as unknown });
    await expect(ws.write("dir", "x")).rejects.toMatchObject({ code: "WORKSPACE_FILE_NOT_FOUND", message: expect.stringContaining("is a folder") as unknown });
    await expect(ws.write("keep.txt/inner.txt", "x")).rejects.toMatchObject({ code: "WORKSPACE_FILE_NOT_FOUND" });
    await expect(ws.read("keep.txt/inner.txt")).rejects.toMatchObject({ code: "WORKSPACE_FILE_NOT_FOUND" });
  });
});
