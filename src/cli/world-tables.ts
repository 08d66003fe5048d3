/**
 * The human form of `agentrt world`: the calls the simulated systems performed, then each system's state as
 * a table (one row per key, an object's fields as columns; lists shown by their length). `--json` has it all.
 * @module
 */
import type { SimSnapshot } from "../testing/sim-world.js";
import { renderTable } from "./text-table.js";

/** The snapshot as lines. */
export function renderWorld(snapshot: SimSnapshot): string[] {
  const tools = [...new Set([...Object.keys(snapshot.calls), ...Object.keys(snapshot.failures)])];
  const lines = ["Calls the simulated systems performed (injected faults under FAILED)"];
  if (tools.length === 0) lines.push("  none yet");
  else lines.push(...renderTable(["TOOL", "PERFORMED", "FAILED"], tools.map((t) => [t, snapshot.calls[t] ?? 0, snapshot.failures[t] ?? 0]), { indent: "  ", align: ["left", "right", "right"] }));
  for (const [system, state] of Object.entries(snapshot.systems)) {
    lines.push("", system);
    lines.push(...systemTable(state));
  }
  if (Object.keys(snapshot.systems).length > 0) lines.push("", "(agentrt world --json prints every value in full)");
  return lines;
}

function systemTable(state: Record<string, unknown>): string[] {
  const entries = Object.entries(state);
  if (entries.length === 0) return ["  no state yet"];
  const records = entries.every(([, value]) => isRecord(value));
  if (!records) return renderTable(["KEY", "VALUE"], entries.map(([key, value]) => [key, cell(value)]), { indent: "  " });
  const fields = [...new Set(entries.flatMap(([, value]) => Object.keys(value as Record<string, unknown>)))];
  return renderTable(
    ["KEY", ...fields.map(header)],
    entries.map(([key, value]) => [key, ...fields.map((f) => cell((value as Record<string, unknown>)[f]))]),
    { indent: "  " },
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** `currentRevision` → `CURRENT_REVISION`. */
function header(field: string): string {
  return field.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase();
}

/** A state value in one short cell (state is JSON: strings, numbers, booleans, lists, objects). */
function cell(value: unknown): string {
  if (value === undefined || value === null) return "-";
  if (Array.isArray(value)) return `${value.length} item${value.length === 1 ? "" : "s"}`;
  if (isRecord(value)) return `${Object.keys(value).length} field${Object.keys(value).length === 1 ? "" : "s"}`;
  const text = (typeof value === "string" ? value : JSON.stringify(value) ?? typeof value).replace(/\s+/g, " ");
  return text.length <= 60 ? text : `${text.slice(0, 59)}…`;
}
