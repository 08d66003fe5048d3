/**
 * The errors a workspace refuses with, and the mapping from the file
 * system's error codes to them.
 * @module
 */
import { ToolError } from "../errors.js";

/** Why a path is refused, as a `ToolError` PATH_OUTSIDE_WORKSPACE. */
export function outside(path: string, reason: string): ToolError {
  return new ToolError("PATH_OUTSIDE_WORKSPACE", `workspace path ${JSON.stringify(path)} refused: ${reason}`, {
    details: { path, reason },
  });
}

/** A path that names nothing usable: missing, or not the kind of entry asked for. */
export function notFound(path: string, cause: unknown, what = "does not exist"): ToolError {
  return new ToolError("WORKSPACE_FILE_NOT_FOUND", `workspace path ${JSON.stringify(path)} ${what}`, { cause, details: { path } });
}

/** A size cap would be exceeded. */
export function tooLarge(path: string, reason: string): ToolError {
  return new ToolError("WORKSPACE_LIMIT_EXCEEDED", `workspace write or read of ${JSON.stringify(path)} refused: ${reason}`, {
    details: { path },
  });
}

/**
 * The refusal a file-system error means for `path`; `linkReason` says why a
 * symbolic link met on the way (ELOOP) is refused. Other errors pass through.
 */
export function fsRefusal(path: string, error: unknown, linkReason: string): unknown {
  switch ((error as { code?: unknown }).code) {
    case "ELOOP":
      return outside(path, linkReason);
    case "ENOENT":
      return notFound(path, error);
    case "ENOTDIR":
      return notFound(path, error, "has a file where a folder is needed");
    default:
      return error;
  }
}
