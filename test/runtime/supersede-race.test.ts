// New input racing an approval, on SQLite: see supersede-race.ts.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe } from "vitest";
import { Runtime } from "../../src/runtime/index.js";
import { supersedeRaceCases } from "./supersede-race.js";

const CONFIG = fileURLToPath(new URL("../../langgraph.json", import.meta.url));
const opened: Runtime[] = [];
afterEach(async () => {
  for (const rt of opened.splice(0)) await rt.close();
});

describe("new input racing an approval (SQLite)", () => {
  supersedeRaceCases(async () => {
    const rt = Runtime.open({ db: join(mkdtempSync(join(tmpdir(), "agentrt-supersede-")), "runs.db"), config: CONFIG });
    opened.push(rt);
    return rt;
  });
});
