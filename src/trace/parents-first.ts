/**
 * The order `TraceStore.spans` promises: parents before children, otherwise start order. Start times alone do not
 * give it: a run resumed in another process (whose clock may be behind) or a child started in the parent's
 * millisecond and written first would come before its parent, and a reader building the tree would drop it.
 * @module
 */
import type { TraceSpan } from "./types.js";

/**
 * `spans` (in start order) with each span moved after its parent when it came before it; stable otherwise. A span
 * whose parent is not among them keeps its place.
 */
export function parentsFirst(spans: readonly TraceSpan[]): TraceSpan[] {
  const present = new Set(spans.map((span) => span.spanId));
  const placed = new Set<string>();
  const waiting = new Map<string, TraceSpan[]>();
  const ordered: TraceSpan[] = [];
  const place = (first: TraceSpan): void => {
    // Iterative: a chain of deferred descendants is placed without recursion.
    const queue = [first];
    while (queue.length > 0) {
      const span = queue.shift()!;
      ordered.push(span);
      placed.add(span.spanId);
      const children = waiting.get(span.spanId);
      if (children !== undefined) {
        waiting.delete(span.spanId);
        queue.unshift(...children);
      }
    }
  };
  for (const span of spans) {
    const parent = span.parentId;
    if (parent === null || !present.has(parent) || placed.has(parent)) place(span);
    else {
      const siblings = waiting.get(parent);
      if (siblings === undefined) waiting.set(parent, [span]);
      else siblings.push(span);
    }
  }
  // A cycle of parent ids (damaged rows) never places its members above: they keep start order at the end.
  for (const rest of waiting.values()) for (const span of rest) if (!placed.has(span.spanId)) ordered.push(span);
  return ordered;
}
