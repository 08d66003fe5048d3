// New input racing an approval, on PostgreSQL (a fresh schema per case): see supersede-race.ts.
import { fileURLToPath } from "node:url";
import { afterEach, describe } from "vitest";
import { Runtime } from "../../src/runtime/index.js";
import { useTestSchema } from "../helpers/postgres.js";
import { supersedeRaceCases } from "./supersede-race.js";

const schema = useTestSchema(import.meta.url);
const CONFIG = fileURLToPath(new URL("../../langgraph.json", import.meta.url));
const opened: Runtime[] = [];
afterEach(async () => {
  for (const rt of opened.splice(0)) await rt.close();
});

describe("new input racing an approval (PostgreSQL)", () => {
  supersedeRaceCases(async () => {
    const rt = Runtime.open({ db: schema.fresh().url, config: CONFIG });
    opened.push(rt);
    await rt.ready();
    return rt;
  });
});
