import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { execLog, killWhen, resumeInNewProcess, savedReturns } from "../../helpers/kill-mid-run.js";

const child = fileURLToPath(new URL("./fixtures/resume-child.ts", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "agentrt-dag-resume-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("declared DAG resume across processes", () => {
  it("after a SIGKILL mid-DAG, another process re-runs only the unfinished nodes, whatever order the others finished in", async () => {
    const db = join(dir, "dag.db");
    const thread = "dag-1";
    // Kill once `gate` runs and the seven nodes that can finish have their results saved.
    await killWhen(child, db, thread, async () => execLog(db).includes("gate-start") && (await savedReturns(db, thread)) >= 7);

    const first = execLog(db);
    const finished = first.filter((n) => n !== "gate-start");
    expect(new Set(finished)).toEqual(new Set(["p1", "p2", "p3", "p4", "q", "r", "solo"]));
    // Finish order differs from the order the tasks were called in (p1 → p4): p4 finished before p1.
    expect(finished.indexOf("p4")).toBeLessThan(finished.indexOf("p1"));
    expect(finished.indexOf("p3")).toBeLessThan(finished.indexOf("p2"));

    const out = resumeInNewProcess<{ sum: number; trail: string[] }>(child, db, thread);
    const second = execLog(db).slice(first.length);
    expect(second).toEqual(["gate-start", "gate", "late"]);
    expect(out.sum).toBe(511);
    expect(out.trail).toEqual(["p1", "p2", "p3", "p4", "solo", "q", "r", "gate", "late"]);
  });
});
