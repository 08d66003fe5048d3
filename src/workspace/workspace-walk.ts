/**
 * Listing an opened workspace folder, descending through descriptors so a
 * folder swapped for a link while listing is never entered.
 * @module
 */
import { lstat, readdir } from "node:fs/promises";
import type { DirHandle } from "./dir-handle.js";

/** One entry of a workspace listing. */
export interface WorkspaceEntry {
  /** Path relative to the workspace root, "/"-separated. */
  path: string;
  /** Symbolic links are reported, never followed. */
  type: "file" | "directory" | "symlink";
  /** Bytes (0 for directories and links). */
  size: number;
}

/**
 * Appends the entries of `dir` (named `prefix/…`, prefix "" for the root) to
 * `out`; `recursive` walks subfolders. FIFOs, sockets and devices are left out.
 */
export async function walk(dir: DirHandle, prefix: string, recursive: boolean, out: WorkspaceEntry[]): Promise<void> {
  const entries = await readdir(dir.path(), { withFileTypes: true });
  await dir.verify();
  for (const entry of entries) {
    const path = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isSymbolicLink()) out.push({ path, type: "symlink", size: 0 });
    else if (entry.isDirectory()) {
      out.push({ path, type: "directory", size: 0 });
      if (recursive) await walkChild(dir, entry.name, path, out);
    } else if (entry.isFile()) {
      // Gone or changed since readdir: left out rather than failing the whole listing.
      const stats = await lstat(dir.path(entry.name)).catch(() => undefined);
      if (stats?.isFile() === true) out.push({ path, type: "file", size: stats.size });
    }
  }
  await dir.verify();
}

async function walkChild(dir: DirHandle, name: string, path: string, out: WorkspaceEntry[]): Promise<void> {
  const child = await dir.child(name).catch(async (error: unknown) => {
    await dir.verify();
    // Removed, or swapped for a link or file, since readdir: nothing of ours to list there.
    if (["ENOENT", "ENOTDIR", "ELOOP"].includes(String((error as { code?: unknown }).code))) return undefined;
    throw error;
  });
  if (child === undefined) return;
  try {
    await walk(child, path, true, out);
  } finally {
    await child.close();
  }
}
