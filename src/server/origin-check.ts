/**
 * Which web pages may call the server. A browser sends `Origin` with every
 * cross-origin request, and a simple one (a `text/plain` POST, a form) is
 * sent without asking first: missing CORS headers on the answer only hide it
 * from the page after it ran. So a foreign Origin is refused before anything
 * runs, and CORS answers only the origins allowed here: pages on this machine
 * (any loopback origin, any port), LangGraph Studio, and configured ones.
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import { UserInputError } from "../errors.js";
import type { ServerEnv } from "./context.js";
import { isLoopback } from "./host-check.js";
import { HttpError } from "./http-error.js";

/** Studio's origins (US and EU LangSmith), allowed by default as Studio is a public page calling a local server. */
const STUDIO_ORIGINS = ["https://smith.langchain.com", "https://eu.smith.langchain.com"];

/** The origins allowed besides the defaults (canonical, see {@link canonicalOrigin}), or any origin. */
export interface OriginPolicy {
  readonly any: boolean;
  readonly origins: ReadonlySet<string>;
}

/** An http(s) origin as a URL, or undefined for anything else. */
function httpOrigin(origin: string): URL | undefined {
  try {
    const url = new URL(origin);
    return url.protocol === "http:" || url.protocol === "https:" ? url : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One spelling per origin: lowercase, default port dropped, and every loopback host (localhost, 127.0.0.1, [::1])
 * the same, so `http://localhost:8302` and `http://127.0.0.1:8302` are one origin. Undefined when not an origin.
 */
function canonicalOrigin(origin: string): string | undefined {
  const trimmed = origin.trim().replace(/\/$/, "");
  const url = httpOrigin(trimmed);
  if (url === undefined) {
    // Other schemes (an app's own, e.g. tauri://localhost) compare as written.
    return /^[a-z][a-z0-9+.-]*:\/\/[^/?#@\s]+$/i.test(trimmed) ? trimmed.toLowerCase() : undefined;
  }
  if (url.username !== "" || url.password !== "" || url.pathname !== "/" || url.search !== "" || url.hash !== "" || trimmed.includes("?") || trimmed.includes("#")) return undefined;
  const host = isLoopback(url.hostname) ? "loopback" : url.hostname;
  return `${url.protocol}//${host}${url.port === "" ? "" : `:${url.port}`}`;
}

/** The configured origins (`--cors-origin`, `AGENTRT_CORS_ORIGINS`) added to the defaults; `"*"` allows any. */
export function originPolicy(configured: readonly string[] | "*" | undefined, source = "cors origin"): OriginPolicy {
  if (configured === "*" || configured?.some((entry) => entry.trim() === "*") === true) return { any: true, origins: new Set() };
  const origins = new Set<string>();
  for (const entry of [...STUDIO_ORIGINS, ...(configured ?? [])]) {
    const canonical = canonicalOrigin(entry);
    if (canonical === undefined) throw new UserInputError("BAD_INPUT", `${source} "${entry}" must be scheme://host[:port], without path (e.g. https://ui.example.com)`);
    origins.add(canonical);
  }
  return { any: false, origins };
}

/** Whether a request with this `Origin` may be served: allowed by the policy, from a loopback page, or from the server's own origin. */
export function originAllowed(policy: OriginPolicy, origin: string, host: string | undefined): boolean {
  if (policy.any) return true;
  const url = httpOrigin(origin);
  if (url !== undefined && isLoopback(url.hostname)) return true;
  const canonical = canonicalOrigin(origin);
  if (canonical !== undefined && policy.origins.has(canonical)) return true;
  // Same origin: the run viewer at /ui calling its server by whatever name passed the Host check.
  return url !== undefined && host !== undefined && sameAuthority(url, host);
}

function sameAuthority(url: URL, host: string): boolean {
  try {
    return new URL(`http://${host}`).host === url.host;
  } catch {
    return false;
  }
}

/**
 * A browser sends no `Origin` with a GET it makes for an `<img>`, `<script>` or frame of another site, but does send
 * `Sec-Fetch-Site: cross-site`: such a GET (a join with `cancel_on_disconnect`, say) is refused too. A top-level
 * navigation (a link to `/ui`) is the user's own and passes; a framed one is not.
 */
function embeddedCrossSite(site: string | undefined, mode: string | undefined, dest: string | undefined): boolean {
  if (site !== "cross-site") return false;
  return mode !== "navigate" || (dest !== undefined && dest !== "document");
}

/** Refuses a request from a page that is not allowed (403), before auth, body or route. */
export function originGuard(policy: OriginPolicy): MiddlewareHandler<ServerEnv> {
  return async (c, next) => {
    const origin = c.req.header("origin");
    if (origin !== undefined && !originAllowed(policy, origin, c.req.header("host"))) {
      throw new HttpError(403, "ORIGIN_NOT_ALLOWED", `requests from the web page at ${origin} are refused: allow its origin with --cors-origin (AGENTRT_CORS_ORIGINS) if it is yours`);
    }
    if (origin === undefined && !policy.any && embeddedCrossSite(c.req.header("sec-fetch-site"), c.req.header("sec-fetch-mode"), c.req.header("sec-fetch-dest"))) {
      throw new HttpError(403, "ORIGIN_NOT_ALLOWED", "requests a foreign web page embeds (an image, a script, a frame) are refused: open the address directly");
    }
    await next();
  };
}

/**
 * CORS for the origins {@link originGuard} let through: preflights answered (before auth: a browser sends no key
 * with them), any request header allowed (the page is trusted), and Chrome's private-network consent, which Studio
 * needs to call a local server.
 */
export function corsFor(policy: OriginPolicy): MiddlewareHandler<ServerEnv> {
  const answer = cors({
    origin: policy.any ? "*" : (origin) => origin,
    allowMethods: ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
    exposeHeaders: ["Content-Location", "Location"],
    maxAge: 600,
  });
  return async (c, next) => {
    const preflight = await answer(c, next);
    if (preflight instanceof Response && preflight.headers.has("Access-Control-Allow-Origin")) preflight.headers.set("Access-Control-Allow-Private-Network", "true");
    return preflight;
  };
}
