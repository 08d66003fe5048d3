// Counting what the limit tests recorded: calls per time window, calls in flight at once.

/** The most of `sorted` times inside any half-open window [t, t + windowMs). */
export function maxInWindow(sorted: number[], windowMs: number): number {
  let most = 0;
  let start = 0;
  for (let end = 0; end < sorted.length; end++) {
    while (sorted[end]! - sorted[start]! >= windowMs) start++;
    most = Math.max(most, end - start + 1);
  }
  return most;
}

/** The most intervals open at once (an end at the same instant as a start does not overlap it). */
export function maxOverlap(calls: Array<{ started_at: number; ended_at: number }>): number {
  const edges = calls.flatMap((c) => [{ at: c.started_at, delta: 1 }, { at: c.ended_at, delta: -1 }]);
  edges.sort((a, b) => a.at - b.at || a.delta - b.delta);
  let open = 0;
  let most = 0;
  for (const edge of edges) most = Math.max(most, (open += edge.delta));
  return most;
}
