/** Digits of the counter part, zero-padded so versions order correctly as strings. */
const COUNTER_WIDTH = 16;

/**
 * The next channel version: a zero-padded counter plus a random suffix, the
 * scheme of LangGraph's Python SQL savers. Blobs are keyed by version, so two
 * branches forked from one checkpoint must never mint the same version for
 * different values; the suffix makes that collision practically impossible.
 * Accepts the integer versions other savers (and tests) produce.
 */
export function nextChannelVersion(current: string | number | undefined): string {
  const counter = current === undefined ? 0 : typeof current === "number" ? Math.floor(current) : parseCounter(current);
  const suffix = Math.floor(Math.random() * 0x1_0000_0000)
    .toString(36)
    .padStart(7, "0");
  return `${String(counter + 1).padStart(COUNTER_WIDTH, "0")}.${suffix}`;
}

function parseCounter(version: string): number {
  const counter = Number.parseInt(version.split(".")[0] ?? "", 10);
  return Number.isFinite(counter) ? counter : 0;
}
