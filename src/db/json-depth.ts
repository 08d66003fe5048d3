/**
 * How deep a JSON document agentrt takes in: one limit for every HTTP body and
 * every stored value, checked without recursion.
 * @module
 */

/**
 * Deepest object/array nesting accepted. SQLite's JSON functions refuse documents nested deeper than 1000 (one
 * such row would break every filtered search over it), and LangGraph's serializers recurse, overflowing the stack
 * a few thousand levels down.
 */
export const MAX_JSON_DEPTH = 500;

/** Whether `value` nests objects or arrays more than `limit` deep (iterative: a deep value must not overflow the stack). */
export function nestedDeeperThan(value: unknown, limit: number = MAX_JSON_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (typeof current !== "object" || current === null) continue;
    if (depth > limit) return true;
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
  return false;
}
