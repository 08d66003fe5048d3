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

/** Shortest accepted key, bare or named. */
const MIN_KEY_LENGTH = 8;

/** A user or role name in `user+role:key`: nothing a generated key would need, so a bare key is never read as one by chance. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

/** One entry; `position` names it in errors, which never show a key. */
function parseEntry(entry: string, position: number): ApiKey {
  const colon = entry.indexOf(":");
  if (colon === -1) {
    if (entry.length < MIN_KEY_LENGTH) throw new UserInputError("BAD_INPUT", `AGENTRT_API_KEY: the key of entry ${position} is shorter than ${MIN_KEY_LENGTH} characters`);
    return { user: "api", roles: [], digest: digest(entry) };
  }
  if (entry.indexOf(":", colon + 1) !== -1) {
    throw new UserInputError("BAD_INPUT", `AGENTRT_API_KEY: entry ${position} has more than one ':' (an entry is a key, or user[+role…]:key; keys cannot contain ':')`);
  }
  const [user = "", ...roles] = entry.slice(0, colon).split("+");
  if (![user, ...roles].every((name) => NAME.test(name))) {
    throw new UserInputError("BAD_INPUT", `AGENTRT_API_KEY: entry ${position}: the part before ':' is not a user name (letters, digits, '.', '_', '-', '@', roles after '+'); a bare key cannot contain ':'`);
  }
  if (entry.length - colon - 1 < MIN_KEY_LENGTH) {
    throw new UserInputError("BAD_INPUT", `AGENTRT_API_KEY: the key of entry ${position} (${user}) is shorter than ${MIN_KEY_LENGTH} characters`);
  }
  return { user, roles, digest: digest(entry.slice(colon + 1)) };
}

/**
 * Parses `AGENTRT_API_KEY`: comma-separated entries, each a bare key (caller "api") or `user:key` /
 * `user+role1+role2:key`. Keys have at least 8 characters and no ':' or ','; an entry that could be read two ways
 * (a second ':', no user name before ':') and a key given twice are refused.
 */
export function parseApiKeys(value: string | undefined): ApiKey[] {
  if (value === undefined || value.trim() === "") return [];
  const keys = value.split(",").map((entry) => entry.trim()).filter((e) => e !== "").map((entry, i) => parseEntry(entry, i + 1));
  keys.forEach((key, i) => {
    const first = keys.findIndex((other) => other.digest.equals(key.digest));
    if (first < i) throw new UserInputError("BAD_INPUT", `AGENTRT_API_KEY: entries ${first + 1} and ${i + 1} have the same key (which caller would it be?)`);
  });
  return keys;
}

/** Who the keys stand for, for the start-up line: "abc, ops (roles admin)". */
export function describeCallers(keys: readonly ApiKey[]): string {
  return [...new Set(keys.map((k) => (k.roles.length === 0 ? k.user : `${k.user} (roles ${k.roles.join(", ")})`)))].join(", ");
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
