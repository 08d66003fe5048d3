/**
 * Text both backends can store. PostgreSQL's `text` and `jsonb` hold no NUL character and no lone UTF-16
 * surrogate (it is not Unicode); SQLite would take them, so agentrt refuses them at the door on both, and the two
 * backends answer the same input the same way.
 * @module
 */

// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** What in `text` cannot be stored ("a NUL character", "a lone surrogate"), or undefined when all of it can. */
export function unstorableInText(text: string): string | undefined {
  if (text.includes("\u0000")) return "a NUL character";
  if (LONE_SURROGATE.test(text)) return "a lone surrogate (not Unicode)";
  return undefined;
}

/** The first string (key or value) in a JSON value that cannot be stored, described; iterative, as deep values are. */
export function unstorableInJson(value: unknown): string | undefined {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const current = stack.pop();
    if (typeof current === "string") {
      const found = unstorableInText(current);
      if (found !== undefined) return found;
    } else if (typeof current === "object" && current !== null) {
      for (const [key, child] of Object.entries(current)) {
        const found = Array.isArray(current) ? undefined : unstorableInText(key);
        if (found !== undefined) return `${found} in a key`;
        stack.push(child);
      }
    }
  }
  return undefined;
}
