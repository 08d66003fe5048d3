/**
 * Which `Host` names the server answers. A web page can point a name it owns
 * at 127.0.0.1 (DNS rebinding) and then read the answers as same-origin; its
 * requests carry that name as `Host`, so a server that answers only its own
 * names is out of its reach. Ports are not compared: a page cannot choose the
 * port its Host names, and an SSH tunnel or a dev proxy keeps the browser's.
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { UserInputError } from "../errors.js";
import type { ServerEnv } from "./context.js";
import { HttpError } from "./http-error.js";

/** The names a server answers besides the loopback ones, or any name. */
export interface HostPolicy {
  readonly any: boolean;
  readonly names: ReadonlySet<string>;
}

/**
 * True for names only this machine can reach: localhost, 127.0.0.0/8, ::1; bracketed or not. Not `*.localhost`:
 * Chrome and Firefox pin it to loopback, but a resolver that asks DNS for it would let a hostile name in.
 */
export function isLoopback(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, "");
  return name === "localhost" || /^127\.\d+\.\d+\.\d+$/.test(name) || name === "::1" || name === "[::1]";
}

/** True for the addresses meaning "every interface". */
function isWildcard(host: string): boolean {
  return ["", "0.0.0.0", "::", "[::]", "0:0:0:0:0:0:0:0"].includes(host);
}

/** The host name of a `Host` header or an allow-list entry, normalized as a URL would (lowercase, IPv6 in brackets), or undefined. */
function hostnameOf(host: string): { hostname: string; port: string } | undefined {
  if (host === "" || /[\s/\\?#@]/.test(host)) return undefined;
  try {
    const url = new URL(`http://${host}`);
    return { hostname: url.hostname.replace(/\.$/, ""), port: url.port };
  } catch {
    return undefined;
  }
}

/**
 * The Host names accepted when listening on `listenHost`: the loopback names always, the listening address, and the
 * allow-list (`--allowed-host`, `AGENTRT_ALLOWED_HOSTS`). Listening on every interface (which needs an API key) the
 * names cannot be known: any is accepted unless an allow-list is given. `"*"` accepts any.
 */
export function hostPolicy(listenHost: string, allowed: readonly string[] | "*" | undefined, source = "allowed host"): HostPolicy {
  if (allowed === "*") return { any: true, names: new Set() };
  const names = new Set<string>();
  for (const entry of allowed ?? []) {
    if (entry.trim() === "*") return { any: true, names: new Set() };
    const parsed = hostnameOf(entry.trim());
    if (parsed === undefined || parsed.port !== "") {
      throw new UserInputError("BAD_INPUT", `${source} "${entry}" must be a host name or address without port or path (e.g. agentrt.internal)`);
    }
    names.add(parsed.hostname);
  }
  if (isWildcard(listenHost)) return { any: allowed === undefined || allowed.length === 0, names };
  const own = hostnameOf(listenHost.includes(":") && !listenHost.startsWith("[") ? `[${listenHost}]` : listenHost);
  if (own !== undefined) names.add(own.hostname);
  return { any: false, names };
}

/** Whether a request with this `Host` header is answered. A request without one (HTTP/1.0, no browser) is. */
export function hostAllowed(policy: HostPolicy, host: string | undefined): boolean {
  if (policy.any || host === undefined) return true;
  const parsed = hostnameOf(host);
  return parsed !== undefined && (isLoopback(parsed.hostname) || policy.names.has(parsed.hostname));
}

/** Refuses a request for a name this server does not answer (421), before anything else runs. */
export function hostGuard(policy: HostPolicy): MiddlewareHandler<ServerEnv> {
  return async (c, next) => {
    const host = c.req.header("host");
    if (!hostAllowed(policy, host)) {
      throw new HttpError(421, "HOST_NOT_ALLOWED", `this server does not answer for Host ${host ?? ""}: add the name with --allowed-host (AGENTRT_ALLOWED_HOSTS) if it is yours`);
    }
    await next();
  };
}
