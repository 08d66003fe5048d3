/** The value that replaces a redacted argument in traces. */
export const REDACTED = "[redacted]";

/**
 * A copy of `args` with every path in `paths` replaced by "[redacted]". Paths
 * are dot-separated; `*` matches every key or array item at that level
 * (`"headers.authorization"`, `"users.*.password"`). The input is not changed.
 * @example redactArgs({ token: "s3cret", city: "Paris" }, ["token"]) // { token: "[redacted]", city: "Paris" }
 */
export function redactArgs(args: unknown, paths: readonly string[]): unknown {
  let out = args;
  for (const path of paths) {
    if (path !== "") out = redactPath(out, path.split("."));
  }
  return out;
}

function redactPath(value: unknown, segments: readonly string[]): unknown {
  const [head, ...rest] = segments;
  if (head === undefined || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    const copy = value.slice();
    const indexes = head === "*" ? copy.keys() : [Number(head)];
    for (const i of indexes) {
      if (Number.isInteger(i) && i >= 0 && i < copy.length) copy[i] = rest.length === 0 ? REDACTED : redactPath(copy[i], rest);
    }
    return copy;
  }
  const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  const keys = head === "*" ? Object.keys(copy) : Object.hasOwn(copy, head) ? [head] : [];
  for (const key of keys) copy[key] = rest.length === 0 ? REDACTED : redactPath(copy[key], rest);
  return copy;
}
