// Round trips to PostgreSQL per city_weather run through Runtime (2 model turns, 3 tool calls), counted at the
// driver as bench/postgres.ts counts them: a pin on the whole run's bookkeeping, so a new per-op read or an unbatched
// write shows up here. The trace's timed flushes (a batch of spans every 25 ms) come more often the slower the machine
// runs the run (53-54 trips under load against 49 idle): they are pinned apart, loosely, and the ceiling is on the rest.
// Before runs V4 a run cost 44 besides them: each checkpoint write 2 (the fence its own send), each tool call 4 (the
// sim's BEGIN and lock, lookup, record, COMMIT), the claim 5.
import { describe, expect, it } from "vitest";
import { fileURLToPath } from "node:url";
import { Runtime } from "../../src/runtime/index.js";
import { useTestSchema, statementsSent } from "../helpers/postgres.js";

const schema = useTestSchema(import.meta.url);
const CONFIG = fileURLToPath(new URL("../../langgraph.json", import.meta.url));
const MESSAGE = "Weather for Beijing, Shanghai and Shenzhen";
/**
 * Checkpoint writes (5 puts, 6 putWrites) at 1 each (BEGIN, fence, write, COMMIT in one send), 3 tool reads at 1
 * each (no lock), the claim (4), the trace's start and end, the run's reads.
 */
const CEILING = 25;
/** Timed flushes of spans alone: one per span (about 15) would be an unbatched trace. */
const SPAN_FLUSHES = 10;


describe("a city_weather run on PostgreSQL", () => {
  it(`costs at most ${CEILING} round trips besides timed span flushes, every checkpoint still fenced`, async () => {
    process.env.AGENTRT_SIM_LATENCY_MS = "0";
    const runtime = Runtime.open({ db: schema.url, config: CONFIG });
    try {
      await runtime.ready();
      // The first run loads the graph and the simulated world's rows; the pin is on a run after it.
      expect((await runtime.submit({ graph: "city_weather", message: MESSAGE })).status).toBe("SUCCEEDED");
      const { sent, result: view } = await statementsSent(() => runtime.submit({ graph: "city_weather", message: MESSAGE }));
      const spanFlushes = sent.filter((text) => text.trimStart().startsWith("INSERT INTO spans"));
      // On the process's LISTEN connection, beside the run and never waited for: the run's own channel, listened to
      // while it executes (its cancel's word), one LISTEN and one UNLISTEN at most.
      const listens = sent.filter((text) => /^(UN)?LISTEN /.test(text));
      expect(view.status).toBe("SUCCEEDED");
      expect(listens.length).toBeLessThanOrEqual(2);
      expect(sent.length - spanFlushes.length - listens.length).toBeLessThanOrEqual(CEILING);
      expect(spanFlushes.length).toBeLessThanOrEqual(SPAN_FLUSHES);
      // Each checkpoint write still goes in a transaction opened with the fence on the run's row, in the same send.
      const writes = sent.filter((text) => /INSERT INTO checkpoint_(blobs|writes)/.test(text));
      expect(writes.length).toBe(11);
      expect(writes.every((text) => text.startsWith("BEGIN; SELECT run_fence(") && text.trimEnd().endsWith("; COMMIT"))).toBe(true);
      // get_weather reads the simulated world: no lock of its system, one statement per call.
      expect(sent.filter((text) => /pg_advisory_xact_lock\(hashtext\('agentrt_sim/.test(text))).toEqual([]);
      // get_weather declares no limits: its calls cost the limit tables nothing (no breaker read, no bucket, no slot).
      expect(sent.filter((text) => /limit_(buckets|slots|breakers)/.test(text))).toEqual([]);
    } finally {
      await runtime.close();
    }
  });
});
