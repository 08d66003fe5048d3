/**
 * A per-run directory for files and intermediate artefacts. Every path is
 * confined to it: absolute paths, `..` escapes and symbolic links leading
 * out are refused with PATH_OUTSIDE_WORKSPACE. Files are opened one folder
 * at a time through directory handles (see dir-handle.ts), so a folder
 * swapped for a link between a check and the open cannot lead out.
 * @module
 */
import { lstat, mkdir } from "node:fs/promises";
import { join, relative, resolve as resolvePath, sep } from "node:path";
import { UserInputError } from "../errors.js";
import { DirHandle } from "./dir-handle.js";
import { fsRefusal, notFound, outside, tooLarge } from "./workspace-errors.js";
import { readRegular, replaceFile } from "./workspace-files.js";
import { checkComponents, isInside, isMissing, normaliseRelative, realpathIfExists } from "./workspace-paths.js";
import { walk, type WorkspaceEntry } from "./workspace-walk.js";

export type { WorkspaceEntry } from "./workspace-walk.js";

/** Size caps of one workspace. */
export interface WorkspaceOptions {
  /** Largest file that may be written or read, in bytes. @default 10485760 (10 MiB) */
  maxFileBytes?: number;
  /** Total size of all files in the workspace, in bytes. @default 104857600 (100 MiB) */
  maxTotalBytes?: number;
}

const RUN_ID = /^[A-Za-z0-9_][A-Za-z0-9_.:-]{0,127}$/;
const WRITE_LINK = "writes through a symbolic link are refused";
// Reads follow links that stay inside (resolve), so a link met while opening was swapped in after that check.
const READ_LINK = "a folder on the way was swapped for a symbolic link while being opened";

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
   * The answer holds when it is given: read, write and list never open
   * through it, and a caller that does must expect the path to change.
   */
  async resolve(path: string): Promise<string> {
    return (await this.#resolve(path)).real;
  }

  /** Reads a UTF-8 text file. */
  async read(path: string): Promise<string> {
    return (await this.readBytes(path)).toString("utf8");
  }

  /**
   * Reads a file's bytes, refusing files over `maxFileBytes`, anything not a
   * regular file (FIFOs, sockets, devices) and files with other hard links.
   */
  async readBytes(path: string): Promise<Buffer> {
    const parts = await this.#realParts(path);
    if (parts === undefined) throw notFound(path, undefined);
    const name = parts.pop();
    if (name === undefined) throw notFound(path, undefined, "is a folder, not a file");
    const dir = await this.#openFolder(path, parts, false, READ_LINK);
    try {
      return await readRegular(dir, name, path, this.maxFileBytes);
    } finally {
      await dir.close();
    }
  }

  /**
   * Writes a file atomically (temp file + rename in its folder), creating
   * parent folders. Refuses any symbolic link on the way and the size caps.
   */
  async write(path: string, data: string | Uint8Array): Promise<{ path: string; bytes: number }> {
    const rel = normaliseRelative(path);
    if (rel === "") throw outside(path, "names the workspace root, not a file");
    const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : Buffer.from(data);
    if (bytes.length > this.maxFileBytes) throw tooLarge(path, `${bytes.length} bytes is over the ${this.maxFileBytes}-byte file cap`);
    const parts = rel.split(sep);
    const name = parts.pop() ?? rel;
    const relPath = rel.split(sep).join("/");
    await mkdir(this.dir, { recursive: true });
    await this.#checkTotal(path, relPath, bytes.length);
    const dir = await this.#openFolder(path, parts, true, WRITE_LINK);
    try {
      await replaceFile(dir, name, bytes, path);
    } finally {
      await dir.close();
    }
    return { path: relPath, bytes: bytes.length };
  }

  /** Entries below `dir` (the root by default), sorted by path; `recursive` walks subdirectories. */
  async list(dir = ".", options: { recursive?: boolean } = {}): Promise<WorkspaceEntry[]> {
    const parts = await this.#realParts(dir);
    if (parts === undefined) return [];
    const folder = await this.#openFolder(dir, parts, false, READ_LINK);
    const entries: WorkspaceEntry[] = [];
    try {
      await walk(folder, parts.join("/"), options.recursive ?? false, entries);
    } finally {
      await folder.close();
    }
    return entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /** Total bytes of the files in the workspace (links are not followed). */
  async totalBytes(): Promise<number> {
    return (await this.#allFiles()).reduce((sum, e) => sum + e.size, 0);
  }

  async #allFiles(): Promise<WorkspaceEntry[]> {
    if ((await this.#realDir()) === undefined) return [];
    const root = await this.#openFolder(".", [], false, READ_LINK);
    const entries: WorkspaceEntry[] = [];
    try {
      await walk(root, "", true, entries);
    } finally {
      await root.close();
    }
    return entries.filter((e) => e.type === "file");
  }

  async #resolve(path: string): Promise<{ real: string; realDir: string | undefined }> {
    const rel = normaliseRelative(path);
    const realDir = await this.#realDir();
    if (realDir === undefined) return { real: join(this.dir, rel), realDir };
    await checkComponents(this.dir, realDir, rel, path);
    const real = await realpathIfExists(join(this.dir, rel));
    if (real !== undefined && !isInside(realDir, real)) throw outside(path, "it resolves outside the workspace");
    return { real: real ?? join(realDir, rel), realDir };
  }

  /** The components of `path` below the real workspace directory, inside links resolved; undefined when there is no directory yet. */
  async #realParts(path: string): Promise<string[] | undefined> {
    const { real, realDir } = await this.#resolve(path);
    if (realDir === undefined) return undefined;
    const rel = relative(realDir, real);
    return rel === "" ? [] : rel.split(sep);
  }

  /** Opens the folder `parts` name, from the run's directory down, never through a link. */
  async #openFolder(path: string, parts: readonly string[], create: boolean, linkReason: string): Promise<DirHandle> {
    const root = await DirHandle.open(this.dir).catch((error: unknown) => {
      throw (error as { code?: unknown }).code === "ELOOP"
        ? outside(path, "the run's workspace directory is a symbolic link")
        : fsRefusal(path, error, linkReason);
    });
    return DirHandle.descend(root, parts, create).catch((error: unknown) => {
      throw fsRefusal(path, error, linkReason);
    });
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

  async #checkTotal(path: string, relPath: string, newBytes: number): Promise<void> {
    const files = await this.#allFiles();
    const existing = files.find((e) => e.path === relPath)?.size ?? 0;
    const total = files.reduce((sum, e) => sum + e.size, 0) - existing + newBytes;
    if (total > this.maxTotalBytes) throw tooLarge(path, `the workspace would hold ${total} bytes, over its ${this.maxTotalBytes}-byte cap`);
  }
}
