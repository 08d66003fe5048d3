/**
 * What a WAITING_INPUT run asks, as stored with the run: read by `status` and the run views without loading
 * LangGraph (answering and resuming is input-resume.ts).
 * @module
 */

/** What a WAITING_INPUT run is waiting for: one live interrupt and its question. */
export interface InputRequest {
  interrupt_id: string;
  /** The question as text: the payload's `question` (or `message`/`prompt`), a string payload, else its JSON. */
  question: string;
  /** The interrupt payload as the graph gave it. */
  value: unknown;
}

/** The question text of an interrupt payload. */
export function questionOf(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "object" && value !== null) {
    for (const key of ["question", "message", "prompt"]) {
      const text = (value as Record<string, unknown>)[key];
      if (typeof text === "string") return text;
    }
  }
  return JSON.stringify(value) ?? String(value);
}

/** The input requests stored in a waiting run's `pending` (what `status` shows without loading the graph). */
export function storedInputRequests(pending: unknown): InputRequest[] {
  if (!Array.isArray(pending)) return [];
  return pending
    .filter((p): p is { interrupt_id: string; value: unknown } => typeof p === "object" && p !== null && typeof p.interrupt_id === "string")
    .map((p) => ({ interrupt_id: p.interrupt_id, question: questionOf(p.value), value: p.value }));
}
