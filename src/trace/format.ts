/** Human formatting of durations, tokens and money, shared by the trace tree and `agentrt stats`. */

/** "850ms", "1.25s", "2m05s", "3h07m". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(2)}s`;
  const totalSeconds = Math.round(ms / 1000);
  if (totalSeconds < 3600) return `${Math.floor(totalSeconds / 60)}m${String(totalSeconds % 60).padStart(2, "0")}s`;
  const totalMinutes = Math.round(totalSeconds / 60);
  return `${Math.floor(totalMinutes / 60)}h${String(totalMinutes % 60).padStart(2, "0")}m`;
}

/** "$0", "$0.000270", "$1.2345", "$123.45": enough digits to see a single cheap call. */
export function formatCost(usd: number): string {
  if (usd === 0) return "$0";
  if (usd < 0.01) return `$${usd.toFixed(6)}`;
  if (usd < 100) return `$${usd.toFixed(4)}`;
  return `$${usd.toFixed(2)}`;
}

/** "1200→350 tok" (input → output). */
export function formatTokens(input: number, output: number): string {
  return `${input}→${output} tok`;
}

/** "12.5%". */
export function formatRate(rate: number): string {
  return `${(rate * 100).toFixed(1)}%`;
}
