// Idempotent run creates on PostgreSQL (a fresh schema per case): see idempotent-create.ts.
import { fileURLToPath } from "node:url";
import { afterEach, describe } from "vitest";
import { Runtime } from "../../src/runtime/index.js";
import { useTestSchema } from "../helpers/postgres.js";
import { idempotentCreateCases } from "./idempotent-create.js";

const schema = useTestSchema(import.meta.url);
const CONFIG = fileURLToPath(new URL("../../langgraph.json", import.meta.url));
const opened: Runtime[] = [];
afterEach(async () => {
  for (const rt of opened.splice(0)) await rt.close();
});

describe("idempotent run create (PostgreSQL)", () => {
  idempotentCreateCases(async () => {
    const rt = Runtime.open({ db: schema.fresh().url, config: CONFIG });
    opened.push(rt);
    await rt.ready();
    return rt;
  });
});
