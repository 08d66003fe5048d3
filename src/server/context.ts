/**
 * What every route handler shares: the run service, the run streams, request
 * body validation (422 schema violations) and the caller.
 * @module
 */
import type { Context } from "hono";
import type { z } from "zod";
import type { Caller } from "./auth.js";
import { HttpError } from "./http-error.js";
import { jsonBody } from "./json-body.js";
import type { RunService } from "./run-service.js";
import type { RunStreams } from "./run-streams.js";

/** Hono environment of the server: the authenticated caller per request. */
export interface ServerEnv {
  Variables: { caller: Caller };
}

/** Dependencies of the routes. */
export interface RouteDeps {
  service: RunService;
  /** The live chunks of runs: the in-process bus (SQLite) or the shared chunk log (PostgreSQL). */
  streams: RunStreams;
  /** Diagnostics, one line each. */
  log: (line: string) => void;
}

/** Validates the JSON body (parsed and depth-checked by {@link jsonBody}); an empty body counts as `{}`. */
export async function readBody<S extends z.ZodType>(c: Context<ServerEnv>, schema: S): Promise<z.infer<S>> {
  const json = (await jsonBody(c)) ?? {};
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const reason = parsed.error.issues.map((i) => `${i.path.join(".") || "body"}: ${i.message}`).join("; ");
    throw new HttpError(422, "BAD_INPUT", `invalid request body: ${reason}`, { details: { issues: parsed.error.issues } });
  }
  return parsed.data;
}

/** A boolean option as the SDK sends it: "true" or "1" in a query string, `true` in a body. */
export function flagParam(value: unknown): boolean {
  return value === true || value === "true" || value === "1";
}

/** A non-negative integer query parameter. */
export function intParam(value: string | undefined, fallback: number, max = 1000): number {
  if (value === undefined || value === "") return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > max) throw new HttpError(422, "BAD_INPUT", `query parameter must be an integer in 0..${max}, got ${value}`);
  return n;
}
