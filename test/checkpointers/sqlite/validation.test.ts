// LangGraph's own conformance suite (718 tests) plus its opt-in DeltaChannel history tests,
// run against a fresh file-backed SqliteSaver per checkpointer.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deltaChannelHistoryTests, validate } from "@langchain/langgraph-checkpoint-validation";
import type { CheckpointSaverTestInitializer } from "@langchain/langgraph-checkpoint-validation";
import { SqliteSaver } from "agentrt/checkpointers";

let dir = "";
let count = 0;

const initializer: CheckpointSaverTestInitializer<SqliteSaver> = {
  // A neutral name: the suite skips "only store changed channel_values" for the official saver's name.
  checkpointerName: "agentrt SqliteSaver",
  beforeAll() {
    dir = mkdtempSync(join(tmpdir(), "agentrt-validation-"));
  },
  afterAll() {
    rmSync(dir, { recursive: true, force: true });
  },
  createCheckpointer() {
    count += 1;
    return SqliteSaver.create({ path: join(dir, `saver-${count}.db`) });
  },
  destroyCheckpointer(saver) {
    saver.close();
  },
};

validate(initializer);
deltaChannelHistoryTests(initializer);
