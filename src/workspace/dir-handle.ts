/**
 * An open directory that later file operations are made relative to, so a
 * folder swapped for a symbolic link after a check cannot redirect them.
 * Node has no openat(); on Linux `/proc/self/fd/<fd>/<name>` is one (the
 * kernel resolves the fd to the directory it holds, not to a path).
 * Elsewhere the directory's path is used and every folder on the way is
 * re-checked by device and inode after each step: that narrows the race
 * to a swap-and-swap-back inside one step, which nothing portable closes.
 * @module
 */
import { constants } from "node:fs";
import { type FileHandle, lstat, mkdir, open, stat } from "node:fs/promises";

const DIR_FLAGS = constants.O_RDONLY | (constants.O_DIRECTORY ?? 0) | (constants.O_NOFOLLOW ?? 0);

/** A folder on the way, as it was when opened (path-based fallback only). */
interface Anchor {
  path: string;
  dev: number;
  ino: number;
}

/** How {@link DirHandle.open} names entries of the directory. */
export interface DirHandleOptions {
  /** Use `/proc/self/fd` when it works (Linux). `false` forces the path-based fallback. @default true */
  viaProc?: boolean;
}

/** An open directory; close it when done. Errors keep Node's `code`s, ELOOP for a link on the way. */
export class DirHandle {
  private constructor(
    private readonly handle: FileHandle,
    private readonly base: string,
    private readonly anchors: readonly Anchor[] | undefined,
  ) {}

  /** Opens the directory at `path`; its last component must not be a symbolic link. */
  static async open(path: string, options: DirHandleOptions = {}): Promise<DirHandle> {
    const handle = await openDir(path);
    try {
      const stats = await handle.stat();
      const proc = `/proc/self/fd/${handle.fd}`;
      if (options.viaProc !== false && (await procWorks(proc, stats))) return new DirHandle(handle, proc, undefined);
      return new DirHandle(handle, path, [{ path, dev: stats.dev, ino: stats.ino }]);
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  /** True when entries are reached through the open descriptor, not a path that can be swapped. */
  get raceFree(): boolean {
    return this.anchors === undefined;
  }

  /**
   * A path naming `name` (one component) in this directory, or the directory
   * itself without `name`, for fs calls that take paths.
   */
  path(name?: string): string {
    // Not path.join: it would turn "<base>/." into "<base>", and O_NOFOLLOW refuses the /proc link itself.
    return name === undefined ? this.base : `${this.base}/${name}`;
  }

  /** Opens the subdirectory `name`, refusing a symbolic link; `create` makes it when missing. */
  async child(name: string, create = false): Promise<DirHandle> {
    const path = this.path(name);
    if (create) {
      await this.verify();
      await mkdir(path).catch((error: unknown) => ignoreCode(error, "EEXIST"));
    }
    const handle = await openDir(path);
    try {
      if (this.anchors === undefined) return new DirHandle(handle, `/proc/self/fd/${handle.fd}`, undefined);
      const stats = await handle.stat();
      const child = new DirHandle(handle, path, [...this.anchors, { path, dev: stats.dev, ino: stats.ino }]);
      await child.verify();
      return child;
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  /**
   * Opens the folder `parts` name below `from`, one component at a time, and
   * hands it over; `from` is closed on the way (returned as is for no parts).
   */
  static async descend(from: DirHandle, parts: readonly string[], create = false): Promise<DirHandle> {
    let current = from;
    for (const part of parts) {
      try {
        const next = await current.child(part, create);
        await current.close();
        current = next;
      } catch (error) {
        await current.close();
        throw error;
      }
    }
    return current;
  }

  /**
   * Path-based fallback only: fails with ELOOP unless every folder on the
   * way is still the one that was opened. A no-op through `/proc`.
   */
  async verify(): Promise<void> {
    for (const anchor of this.anchors ?? []) {
      const now = await lstat(anchor.path).catch(() => undefined);
      if (now === undefined || !now.isDirectory() || now.dev !== anchor.dev || now.ino !== anchor.ino) throw linkOnTheWay(anchor.path);
    }
  }

  /** Releases the descriptor. */
  async close(): Promise<void> {
    await this.handle.close();
  }
}

async function openDir(path: string): Promise<FileHandle> {
  try {
    return await open(path, DIR_FLAGS);
  } catch (error) {
    // Linux answers ENOTDIR, not ELOOP, for O_DIRECTORY|O_NOFOLLOW on a link: tell the two apart for the message.
    if ((error as { code?: unknown }).code === "ENOTDIR" && (await lstat(path).catch(() => undefined))?.isSymbolicLink()) {
      throw linkOnTheWay(path);
    }
    throw error;
  }
}

let procChecked: boolean | undefined;

/** Whether `/proc/self/fd/<fd>` leads to the directory `fd` holds; asked once per process. */
async function procWorks(path: string, stats: { dev: number; ino: number }): Promise<boolean> {
  if (procChecked === undefined) {
    const other = await stat(path).catch(() => undefined);
    procChecked = other !== undefined && other.dev === stats.dev && other.ino === stats.ino;
  }
  return procChecked;
}

function linkOnTheWay(path: string): Error {
  return Object.assign(new Error(`${path} is, or was swapped for, a symbolic link`), { code: "ELOOP" });
}

function ignoreCode(error: unknown, code: string): void {
  if ((error as { code?: unknown }).code !== code) throw error;
}
