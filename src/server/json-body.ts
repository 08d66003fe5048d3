/**
 * Request bodies are JSON or nothing. A body of another type is refused with
 * 415 before any route sees it: a web page can send `text/plain` (or a form)
 * cross-origin without a preflight, and such a body must never start a run.
 * Every body is parsed once here, so its depth is checked in one place.
 * @module
 */
import type { Context, MiddlewareHandler } from "hono";
import { MAX_JSON_DEPTH, nestedDeeperThan, unstorableInJson } from "../db/index.js";
import type { ServerEnv } from "./context.js";
import { HttpError } from "./http-error.js";

/** Parsed bodies by request: routes that read the body again get the value checked here. */
const parsed = new WeakMap<object, Promise<unknown>>();

/** True for `application/json` and `application/<something>+json`, with or without parameters. */
function isJsonType(contentType: string | undefined): boolean {
  const type = contentType?.split(";")[0]?.trim().toLowerCase() ?? "";
  return type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"));
}

/** Whether the request announces a body; the SDK's body-less POSTs (cancel, copy) send `Content-Length: 0` or nothing. */
function carriesBody(c: Context): boolean {
  const length = c.req.header("content-length");
  return (length !== undefined && Number(length) > 0) || c.req.header("transfer-encoding") !== undefined;
}

/** Refuses a non-JSON body (415) and parses a JSON one (400 malformed, 422 too deep or unstorable text) before the routes. */
export function jsonBodies(): MiddlewareHandler<ServerEnv> {
  return async (c, next) => {
    if (carriesBody(c)) {
      const type = c.req.header("content-type");
      if (!isJsonType(type)) {
        throw new HttpError(415, "UNSUPPORTED_MEDIA_TYPE", `request body must be JSON (Content-Type: application/json), got ${type === undefined ? "no Content-Type" : type}`);
      }
      await jsonBody(c);
    }
    await next();
  };
}

/**
 * The request's JSON body, parsed once; undefined when it is empty. Its fields (run input, metadata, a store value)
 * may nest {@link MAX_JSON_DEPTH} levels, the body itself one more.
 */
export function jsonBody(c: Context<ServerEnv>): Promise<unknown> {
  let body = parsed.get(c.req);
  if (body === undefined) {
    body = c.req.text().then((text) => {
      if (text.trim() === "") return undefined;
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch (error) {
        throw new HttpError(400, "BAD_INPUT", `malformed JSON body: ${(error as Error).message}`);
      }
      if (nestedDeeperThan(json, MAX_JSON_DEPTH + 1)) {
        throw new HttpError(422, "BAD_INPUT", `request body nests arrays or objects deeper than ${MAX_JSON_DEPTH} levels (the limit for run input, metadata and stored values)`);
      }
      const unstorable = unstorableInJson(json);
      if (unstorable !== undefined) {
        throw new HttpError(422, "BAD_INPUT", `request body holds ${unstorable}, which agentrt cannot store (PostgreSQL text refuses it)`);
      }
      return json;
    });
    parsed.set(c.req, body);
  }
  return body;
}
