// Scale part 3: two `agentrt serve` processes on one PostgreSQL schema; each SDK client creates a city_weather run
// on serve A and streams it from serve B (`runs.joinStream` with Last-Event-ID -1: the whole run). Expected: the
// chunks A itself streams for a run (measured on a reference run), in order (SSE ids increasing by one), the
// last values chunk equal to the thread's final state.
import { Client } from "@langchain/langgraph-sdk";
import { canonicalJson as canonicalize } from "../src/tools/args-hash.js";
import { agentrt, type BenchSchema } from "./_scale-pg.js";
import { TOOL_LATENCY_MS } from "./_scale-workers.js";

const INPUT = { messages: [{ role: "user", content: "Weather for Beijing, Shanghai and Shenzhen" }] };
const MODES: Array<"values" | "updates"> = ["values", "updates"];

/** What the cross-process streaming check found. */
export interface StreamFigures {
  clients: number;
  /** Chunks (values + updates events) one run streams from the process that executes it. */
  expected_chunks: number;
  /** Clients whose stream from the other process had every chunk, in order, ending in the final state. */
  complete_in_order: number;
  /** Chunks missing over all clients (expected − received). */
  chunks_lost: number;
  /** Chunks received without an SSE id (a serve's fallback: the final values only). */
  chunks_without_id: number;
  /** Clients that received a chunk out of order (an SSE id not above the previous). */
  out_of_order: number;
  /** Clients whose last values chunk differs from the thread's final state. */
  final_state_mismatch: number;
  /** A client's error, if any failed outright. */
  errors: string[];
}

interface Part {
  id?: string;
  event: string;
  data: unknown;
}

/** Starts two serves on the schema, runs the clients, and stops the serves. */
export async function measureCrossProcessStream(schema: BenchSchema, clients: number): Promise<StreamFigures> {
  const serves = [0, 1].map(() => agentrt(["serve", "--db", schema.url, "--port", "0", "--json"], { AGENTRT_SIM_LATENCY_MS: String(TOOL_LATENCY_MS) }));
  try {
    const [a, b] = await Promise.all(serves.map(async (s) => new Client({ apiUrl: await servedUrl(s) })));
    if (a === undefined || b === undefined) throw new Error("bench scale: a serve did not start");
    // The reference: a run streamed by the process that executes it.
    const thread = await a.threads.create();
    const reference: Part[] = [];
    for await (const part of a.runs.stream(thread.thread_id, "city_weather", { input: INPUT, streamMode: MODES })) reference.push(part);
    const expected = chunksOf(reference).length;
    const results = await Promise.all(Array.from({ length: clients }, () => oneClient(a, b).catch((error: unknown) => ({ error: String(error) }))));
    const figures: StreamFigures = { clients, expected_chunks: expected, complete_in_order: 0, chunks_lost: 0, chunks_without_id: 0, out_of_order: 0, final_state_mismatch: 0, errors: [] };
    for (const r of results) {
      if ("error" in r) {
        if (figures.errors.length < 5) figures.errors.push(r.error);
        continue;
      }
      figures.chunks_lost += Math.max(0, expected - r.received);
      figures.chunks_without_id += r.withoutId;
      if (!r.inOrder) figures.out_of_order++;
      if (!r.finalMatches) figures.final_state_mismatch++;
      if (r.received === expected && r.withoutId === 0 && r.inOrder && r.finalMatches) figures.complete_in_order++;
    }
    return figures;
  } finally {
    for (const s of serves) s.child.kill("SIGTERM");
    await Promise.all(serves.map((s) => s.exited));
  }
}

/** One client: create on A, join B's stream of it from the beginning, compare with A's final state. */
async function oneClient(a: Client, b: Client): Promise<{ received: number; withoutId: number; inOrder: boolean; finalMatches: boolean }> {
  const thread = await a.threads.create();
  // Resumable: published from its first chunk wherever it executes, so a join from the start gets every chunk.
  const run = await a.runs.create(thread.thread_id, "city_weather", { input: INPUT, streamMode: MODES, streamResumable: true });
  const parts: Part[] = [];
  for await (const part of b.runs.joinStream(thread.thread_id, run.run_id, { lastEventId: "-1", streamMode: MODES })) parts.push(part);
  const chunks = chunksOf(parts);
  // A chunk without an SSE id is the final values a server sends when it has none of the run's chunks.
  const ids = chunks.filter((p) => p.id !== undefined && p.id !== "").map((p) => Number(p.id));
  // Ids number every chunk the run published (other modes too): increasing, not consecutive, in the modes asked for.
  const inOrder = ids.every((id, i) => Number.isInteger(id) && (i === 0 || id > (ids[i - 1] ?? 0)));
  const lastValues = [...chunks].reverse().find((p) => p.event === "values")?.data as { messages?: unknown[] } | undefined;
  const final = (await a.threads.getState<{ messages?: unknown[] }>(thread.thread_id)).values;
  // Compared canonically: chunks stored as jsonb come back with their keys in jsonb's order, not the writer's.
  const finalMatches = canonicalize(lastValues?.messages ?? null) === canonicalize(final.messages ?? null);
  return { received: chunks.length, withoutId: chunks.length - ids.length, inOrder, finalMatches };
}

const chunksOf = (parts: readonly Part[]): Part[] => parts.filter((p) => p.event === "values" || p.event === "updates");

/** The URL a `serve --json` child prints on its first stdout line. */
async function servedUrl(serve: ReturnType<typeof agentrt>): Promise<string> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const line = serve.stdout().split("\n").find((l) => l.startsWith("{"));
    if (line !== undefined) return (JSON.parse(line) as { url: string }).url;
    if (Date.now() > deadline || serve.child.exitCode !== null) throw new Error(`bench scale: serve did not start: ${serve.stderr().slice(-2000)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
