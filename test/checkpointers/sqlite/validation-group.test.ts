// LangGraph's conformance suite and DeltaChannel history tests again, on savers with the
// opt-in `durability: "group"`: queued writes must be invisible to no caller.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deltaChannelHistoryTests, validate } from "@langchain/langgraph-checkpoint-validation";
import type { CheckpointSaverTestInitializer } from "@langchain/langgraph-checkpoint-validation";
import { SqliteSaver } from "agentrt/checkpointers";

let dir = "";
let count = 0;

const initializer: CheckpointSaverTestInitializer<SqliteSaver> = {
  checkpointerName: "agentrt SqliteSaver (group commit)",
  beforeAll() {
    dir = mkdtempSync(join(tmpdir(), "agentrt-validation-group-"));
  },
  afterAll() {
    rmSync(dir, { recursive: true, force: true });
  },
  createCheckpointer() {
    count += 1;
    return SqliteSaver.create({ path: join(dir, `saver-${count}.db`), durability: "group" });
  },
  destroyCheckpointer(saver) {
    saver.close();
  },
};

validate(initializer);
deltaChannelHistoryTests(initializer);
