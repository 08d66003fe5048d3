/**
 * A per-run directory for files and intermediate artefacts. Every path is
 * confined to it: absolute paths, `..` escapes and symbolic links leading
 * out are refused with PATH_OUTSIDE_WORKSPACE.
 * @module
 */
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { lstat, mkdir, open, readdir, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join, relative, resolve as resolvePath, sep } from "node:path";
import { ToolError, UserInputError } from "../errors.js";
import { checkComponents, isInside, isMissing, normaliseRelative, outside, realpathIfExists } from "./workspace-paths.js";

/** Size caps of one workspace. */
export interface WorkspaceOptions {
  /** Largest file that may be written or read, in bytes. @default 10485760 (10 MiB) */
  maxFileBytes?: number;
  /** Total size of all files in the workspace, in bytes. @default 104857600 (100 MiB) */
  maxTotalBytes?: number;
}

/** One entry of {@link Workspace.list}. */
export interface WorkspaceEntry {
  /** Path relative to the workspace root, "/"-separated. */
  path: string;
  /** Symbolic links are reported, never followed. */
  type: "file" | "directory" | "symlink";
  /** Bytes (0 for directories and links). */
  size: number;
}

const RUN_ID = /^[A-Za-z0-9_][A-Za-z0-9_.:-]{0,127}$/;

/** A run's workspace directory, `<rootDir>/<runId>`, created on first write. */
export class Workspace {
  /** Absolute path of the run's directory. */
  readonly dir: string;
  readonly maxFileBytes: number;
  readonly maxTotalBytes: number;

  private constructor(dir: string, options: WorkspaceOptions) {
    this.dir = dir;
    this.maxFileBytes = options.maxFileBytes ?? 10 * 1024 * 1024;
    this.maxTotalBytes = options.maxTotalBytes ?? 100 * 1024 * 1024;
  }

  /**
   * The workspace of `runId` under `rootDir`; runs never see each other's files.
   * @example
   * const ws = Workspace.forRun("./workspaces", ctx.runId);
   * await ws.write("notes/summary.md", "# Findings");
   */
  static forRun(rootDir: string, runId: string, options: WorkspaceOptions = {}): Workspace {
    if (!RUN_ID.test(runId) || runId.includes("..")) {
      throw new UserInputError("BAD_INPUT", `workspace: run id ${JSON.stringify(runId)} cannot name a directory`);
    }
    return new Workspace(join(resolvePath(rootDir), runId), options);
  }

  /**
   * The absolute real path `path` names inside the workspace (which need not
   * exist yet). Symbolic links are followed only while they stay inside.
   */
  async resolve(path: string): Promise<string> {
    const rel = normaliseRelative(path);
    const realDir = await this.#realDir();
    if (realDir === undefined) return join(this.dir, rel);
    await checkComponents(this.dir, realDir, rel, path, true);
    const real = await realpathIfExists(join(this.dir, rel));
    if (real !== undefined && !isInside(realDir, real)) throw outside(path, "it resolves outside the workspace");
    return real ?? join(realDir, rel);
  }

  /** Reads a UTF-8 text file. */
  async read(path: string): Promise<string> {
    return (await this.readBytes(path)).toString("utf8");
  }

  /** Reads a file's bytes, refusing files over `maxFileBytes`. */
  async readBytes(path: string): Promise<Buffer> {
    const real = await this.resolve(path);
    // O_NOFOLLOW: a link swapped in after the check is refused, not followed.
    const handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW).catch((error: unknown) => {
      throw isMissing(error) ? notFound(path, error) : error;
    });
    try {
      const stats = await handle.stat();
      if (!stats.isFile()) throw notFound(path, undefined, "is not a file");
      if (stats.size > this.maxFileBytes) throw tooLarge(path, `file is ${stats.size} bytes, over the ${this.maxFileBytes}-byte cap`);
      return await handle.readFile();
    } finally {
      await handle.close();
    }
  }

  /**
   * Writes a file atomically (temp file + rename), creating parent
   * directories. Refuses any symbolic link on the way and the size caps.
   */
  async write(path: string, data: string | Uint8Array): Promise<{ path: string; bytes: number }> {
    const rel = normaliseRelative(path);
    if (rel === "") throw outside(path, "names the workspace root, not a file");
    const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : Buffer.from(data);
    if (bytes.length > this.maxFileBytes) throw tooLarge(path, `${bytes.length} bytes is over the ${this.maxFileBytes}-byte file cap`);
    await this.#ensureDir();
    const realDir = (await this.#realDir()) ?? this.dir;
    await checkComponents(this.dir, realDir, rel, path, false);
    const target = join(this.dir, rel);
    await this.#checkTotal(path, target, bytes.length);
    await mkdir(dirname(target), { recursive: true });
    // mkdir may have raced with someone planting a link: check again before writing.
    await checkComponents(this.dir, realDir, rel, path, false);
    const temp = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString("hex")}.tmp`);
    const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
    try {
      await handle.writeFile(bytes);
    } finally {
      await handle.close();
    }
    try {
      await rename(temp, target);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
    return { path: rel.split(sep).join("/"), bytes: bytes.length };
  }

  /** Entries below `dir` (the root by default), sorted by path; `recursive` walks subdirectories. */
  async list(dir = ".", options: { recursive?: boolean } = {}): Promise<WorkspaceEntry[]> {
    const real = await this.resolve(dir);
    const realDir = await this.#realDir();
    if (realDir === undefined) return [];
    const stats = await stat(real).catch((error: unknown) => {
      throw isMissing(error) ? notFound(dir, error) : error;
    });
    if (!stats.isDirectory()) throw notFound(dir, undefined, "is not a directory");
    const entries: WorkspaceEntry[] = [];
    await walk(real, realDir, options.recursive ?? false, entries);
    return entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /** Total bytes of the files in the workspace (links are not followed). */
  async totalBytes(): Promise<number> {
    const realDir = await this.#realDir();
    if (realDir === undefined) return 0;
    const entries: WorkspaceEntry[] = [];
    await walk(realDir, realDir, true, entries);
    return entries.reduce((sum, e) => sum + e.size, 0);
  }

  async #realDir(): Promise<string | undefined> {
    try {
      const stats = await lstat(this.dir);
      if (stats.isSymbolicLink()) throw outside(".", "the run's workspace directory is a symbolic link");
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
    return realpathIfExists(this.dir);
  }

  async #ensureDir(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
  }

  async #checkTotal(path: string, target: string, newBytes: number): Promise<void> {
    const existing = await lstat(target).then((s) => (s.isFile() ? s.size : 0), () => 0);
    const total = (await this.totalBytes()) - existing + newBytes;
    if (total > this.maxTotalBytes) throw tooLarge(path, `the workspace would hold ${total} bytes, over its ${this.maxTotalBytes}-byte cap`);
  }
}

async function walk(dir: string, root: string, recursive: boolean, out: WorkspaceEntry[]): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    const path = relative(root, full).split(sep).join("/");
    if (entry.isSymbolicLink()) out.push({ path, type: "symlink", size: 0 });
    else if (entry.isDirectory()) {
      out.push({ path, type: "directory", size: 0 });
      if (recursive) await walk(full, root, true, out);
    } else if (entry.isFile()) out.push({ path, type: "file", size: (await lstat(full)).size });
  }
}

function notFound(path: string, cause: unknown, what = "does not exist"): ToolError {
  return new ToolError("WORKSPACE_FILE_NOT_FOUND", `workspace path ${JSON.stringify(path)} ${what}`, { cause, details: { path } });
}

function tooLarge(path: string, reason: string): ToolError {
  return new ToolError("WORKSPACE_LIMIT_EXCEEDED", `workspace write or read of ${JSON.stringify(path)} refused: ${reason}`, {
    details: { path },
  });
}
