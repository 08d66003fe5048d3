/**
 * Path confinement for a workspace: lexical checks first (absolute, `..`),
 * then the file system (symbolic links resolved with realpath).
 * @module
 */
import { lstat, realpath } from "node:fs/promises";
import { isAbsolute, join, normalize, relative, sep } from "node:path";
import { outside } from "./workspace-errors.js";

/** True when `target` is `dir` or below it (both absolute, already real). */
export function isInside(dir: string, target: string): boolean {
  const rel = relative(dir, target);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/**
 * The workspace-relative form of `path` ("" for the root), refusing absolute
 * paths, `..` escapes and NUL bytes before the file system is touched.
 */
export function normaliseRelative(path: string): string {
  if (typeof path !== "string") throw outside(String(path), "not a string");
  if (path.includes("\0")) throw outside(path, "contains a NUL byte");
  if (isAbsolute(path) || /^[a-zA-Z]:[\\/]/.test(path) || path.startsWith("\\\\")) throw outside(path, "absolute paths are not allowed");
  const normal = normalize(path === "" ? "." : path);
  if (normal === ".." || normal.startsWith(`..${sep}`)) throw outside(path, "it leaves the workspace");
  return normal === "." || normal === `.${sep}` ? "" : normal.replace(/[\\/]+$/, "");
}

/** realpath, or undefined when the path does not exist. */
export async function realpathIfExists(path: string): Promise<string | undefined> {
  try {
    return await realpath(path);
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/** True for ENOENT / ENOTDIR: the path (or a parent) is not there. */
export function isMissing(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === "ENOENT" || code === "ENOTDIR";
}

/**
 * Walks `rel` below `dir` one component at a time, refusing a symbolic link
 * that dangles or leads outside `realDir`. Returns whether the whole path
 * exists. Advisory: what is opened afterwards goes through directory handles.
 */
export async function checkComponents(dir: string, realDir: string, rel: string, input: string): Promise<boolean> {
  let current = dir;
  for (const part of rel === "" ? [] : rel.split(sep)) {
    current = join(current, part);
    let stats;
    try {
      stats = await lstat(current);
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
    if (!stats.isSymbolicLink()) continue;
    const target = await realpathIfExists(current);
    if (target === undefined) throw outside(input, "it is a dangling symbolic link");
    if (!isInside(realDir, target)) throw outside(input, "a symbolic link points outside the workspace");
  }
  return true;
}
