import { createHash } from "node:crypto";
import canonicalizeModule from "canonicalize";

// The package is CommonJS (`module.exports = fn`) but its types declare an ES default export.
const canonicalize = canonicalizeModule as unknown as (input: unknown) => string | undefined;

/** RFC 8785 canonical JSON of `value`; throws on values JSON cannot represent. */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError("canonicalJson: value is not representable as JSON");
  return text;
}

/**
 * sha256 (hex) of the canonical JSON of `{ tool, args }`: what an approval is
 * bound to, so a decision cannot be replayed onto different arguments.
 */
export function argsHash(tool: string, args: unknown): string {
  return createHash("sha256").update(canonicalJson({ tool, args })).digest("hex");
}
