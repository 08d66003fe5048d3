/**
 * A request's path and query may carry text that no backend stores the same way (a NUL, a lone surrogate): a
 * `thread_id` in the path is stored as it comes. Such a request is refused with 422 before any route sees it,
 * on SQLite as on PostgreSQL. (Bodies are checked where they are parsed, in json-body.ts.)
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { unstorableInText } from "../db/index.js";
import type { ServerEnv } from "./context.js";
import { HttpError } from "./http-error.js";

/** Refuses (422 BAD_INPUT) a path segment or query value holding a NUL character or a lone surrogate. */
export function storableRequestText(): MiddlewareHandler<ServerEnv> {
  return async (c, next) => {
    const url = new URL(c.req.url);
    const problem = unstorableInText(decodedPath(url.pathname)) ?? [...url.searchParams].map(([key, value]) => unstorableInText(key + value)).find((found) => found !== undefined);
    if (problem !== undefined) throw new HttpError(422, "BAD_INPUT", `request path or query holds ${problem}, which agentrt cannot store`);
    await next();
  };
}

function decodedPath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    // Percent-escapes that are not UTF-8 stay as written, as the router keeps them: plain, storable text.
    return path;
  }
}
