/**
 * API-key auth: with `AGENTRT_API_KEY` set every request must carry the key
 * in `x-api-key` or `Authorization: Bearer`. The key names the caller, whose
 * identity (not the body's) decides approvals.
 * @module
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { UserInputError } from "../errors.js";

/** Who is calling. */
export interface Caller {
  id: string;
  roles: string[];
  /** True when the identity comes from a key, not from the request body. */
  authenticated: boolean;
}

/** One accepted key and the identity it stands for. */
export interface ApiKey {
  user: string;
  roles: string[];
  digest: Buffer;
}

const ANONYMOUS: Caller = { id: "anonymous", roles: [], authenticated: false };

function digest(key: string): Buffer {
  return createHash("sha256").update(key).digest();
}

/**
 * Parses `AGENTRT_API_KEY`: a bare key (caller "api"), or comma-separated
 * `user:key` or `user+role1+role2:key` entries for several callers.
 */
export function parseApiKeys(value: string | undefined): ApiKey[] {
  if (value === undefined || value.trim() === "") return [];
  return value.split(",").map((entry) => entry.trim()).filter((e) => e !== "").map((entry) => {
    const colon = entry.indexOf(":");
    if (colon <= 0) return { user: "api", roles: [], digest: digest(entry) };
    const [user = "api", ...roles] = entry.slice(0, colon).split("+");
    const key = entry.slice(colon + 1);
    if (key.length < 8) throw new UserInputError("BAD_INPUT", `AGENTRT_API_KEY: the key of ${user} is shorter than 8 characters`);
    return { user, roles, digest: digest(key) };
  });
}

/** The caller a request's headers authenticate; undefined when keys are set and none matches. */
export function authenticate(keys: readonly ApiKey[], headers: { apiKey?: string; authorization?: string }): Caller | undefined {
  if (keys.length === 0) return ANONYMOUS;
  const bearer = headers.authorization?.match(/^Bearer\s+(.+)$/i)?.[1];
  const presented = headers.apiKey ?? bearer;
  if (presented === undefined) return undefined;
  const d = digest(presented);
  const match = keys.find((k) => timingSafeEqual(k.digest, d));
  return match === undefined ? undefined : { id: match.user, roles: match.roles, authenticated: true };
}
