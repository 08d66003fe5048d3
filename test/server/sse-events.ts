// Reading a raw SSE response as the server sends it (id, event, data), for the stream tests that check event ids.

/** One SSE event as sent. */
export interface SseEvent {
  id?: string;
  event: string;
  data: string;
}

/** Reads SSE events until `stop` says so (then drops the connection, aborting `abort`) or the stream ends. */
export async function readEvents(response: Response, stop: (events: SseEvent[]) => boolean = () => false, abort?: AbortController): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return events;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const field = (name: string) => block.split("\n").filter((l) => l.startsWith(`${name}:`)).map((l) => l.slice(name.length + 1).trimStart()).join("\n");
      if (block.trim() === "" || block.startsWith(":")) continue;
      events.push({ ...(field("id") === "" ? {} : { id: field("id") }), event: field("event"), data: field("data") });
      if (stop(events)) {
        abort?.abort();
        await reader.cancel().catch(() => undefined);
        return events;
      }
    }
  }
}

/** The numbered events' ids, in order. */
export const idsOf = (events: readonly SseEvent[]): number[] => events.filter((e) => e.id !== undefined).map((e) => Number(e.id));
