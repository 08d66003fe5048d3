// Idempotent run creates on SQLite: see idempotent-create.ts.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe } from "vitest";
import { Runtime } from "../../src/runtime/index.js";
import { idempotentCreateCases } from "./idempotent-create.js";

const CONFIG = fileURLToPath(new URL("../../langgraph.json", import.meta.url));
const opened: Runtime[] = [];
afterEach(async () => {
  for (const rt of opened.splice(0)) await rt.close();
});

describe("idempotent run create (SQLite)", () => {
  idempotentCreateCases(async () => {
    const rt = Runtime.open({ db: join(mkdtempSync(join(tmpdir(), "agentrt-idempotent-")), "runs.db"), config: CONFIG });
    opened.push(rt);
    return rt;
  });
});
