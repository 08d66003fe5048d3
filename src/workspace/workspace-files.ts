/**
 * Reading and replacing one file inside an opened workspace folder. Only
 * regular files with a single name are read; writes go to a fresh file that
 * is renamed into place, so they never change what another name points at.
 * @module
 */
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { lstat, open, rename, rm } from "node:fs/promises";
import type { DirHandle } from "./dir-handle.js";
import { isMissing } from "./workspace-paths.js";
import { notFound, outside, tooLarge } from "./workspace-errors.js";

// O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
// Reads follow links that stay inside before they get here (Workspace.resolve), so a link now was swapped in.
const SWAPPED = "it was swapped for a symbolic link while being opened";
const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/** Reads `name` in `dir`, refusing links, anything not a regular file, hard-linked files and files over `maxBytes`. */
export async function readRegular(dir: DirHandle, name: string, path: string, maxBytes: number): Promise<Buffer> {
  // Checked before opening too: opening a device can have effects of its own.
  refuseIrregular(path, await lstat(dir.path(name)).catch((error: unknown) => missing(path, error)), "read", SWAPPED);
  const handle = await open(dir.path(name), READ_FLAGS).catch((error: unknown) => {
    // The entry changed since lstat: a link now (ELOOP) is refused like any other.
    throw (error as { code?: unknown }).code === "ELOOP" ? outside(path, SWAPPED) : missing(path, error);
  });
  try {
    const stats = await handle.stat();
    refuseIrregular(path, stats, "read", SWAPPED);
    if (stats.nlink > 1) {
      throw outside(path, `the file has ${stats.nlink} names (hard links) and another may be outside the workspace, so it is not read`);
    }
    if (stats.size > maxBytes) throw tooLarge(path, `file is ${stats.size} bytes, over the ${maxBytes}-byte cap`);
    await dir.verify();
    const bytes = await handle.readFile();
    // The file may have grown since fstat.
    if (bytes.length > maxBytes) throw tooLarge(path, `file is ${bytes.length} bytes, over the ${maxBytes}-byte cap`);
    return bytes;
  } finally {
    await handle.close();
  }
}

/**
 * Replaces (or creates) `name` in `dir` with `bytes`: a new file with a
 * random name in the same folder, renamed over the old one. An existing
 * hard link is thereby replaced, never written through.
 */
export async function replaceFile(dir: DirHandle, name: string, bytes: Uint8Array, path: string): Promise<void> {
  const existing = await lstat(dir.path(name)).catch((error: unknown) => {
    if (isMissing(error)) return undefined;
    throw error;
  });
  if (existing !== undefined) refuseIrregular(path, existing, "write", "writes through a symbolic link are refused");
  // Not derived from `name`: a legal 255-byte name plus a suffix would be too long for the file system.
  const temp = `.agentrt-write-${randomBytes(8).toString("hex")}.tmp`;
  await dir.verify();
  const handle = await open(dir.path(temp), CREATE_FLAGS, 0o644).catch((error: unknown) => {
    throw isMissing(error) ? folderGone(path, error) : error;
  });
  try {
    try {
      await handle.writeFile(bytes);
    } finally {
      await handle.close();
    }
  } catch (error) {
    // A full disk or quota must not leave partial bytes behind that count against the workspace's size cap.
    await rm(dir.path(temp), { force: true });
    throw error;
  }
  try {
    await dir.verify();
    await rename(dir.path(temp), dir.path(name));
  } catch (error) {
    await rm(dir.path(temp), { force: true });
    const code = (error as { code?: unknown }).code;
    throw code === "EISDIR" ? notFound(path, error, "is a folder, not a file") : isMissing(error) ? folderGone(path, error) : error;
  }
}

type Kind = { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean };

function refuseIrregular(path: string, stats: Kind, what: "read" | "write", linkReason: string): void {
  if (stats.isSymbolicLink()) throw outside(path, linkReason);
  if (stats.isDirectory()) throw notFound(path, undefined, "is a folder, not a file");
  if (!stats.isFile()) throw notFound(path, undefined, `is not a regular file (a FIFO, socket or device is never ${what === "read" ? "read" : "written"})`);
}

function folderGone(path: string, cause: unknown): Error {
  return notFound(path, cause, "lost its folder while being written (removed or moved meanwhile)");
}

function missing(path: string, error: unknown): never {
  throw isMissing(error) ? notFound(path, error) : error;
}
