// LangGraph's own conformance suite plus its opt-in DeltaChannel history tests, run against agentrt's
// PostgresSaver, each checkpointer in a fresh schema of the test server.
import { deltaChannelHistoryTests, validate, type CheckpointSaverTestInitializer } from "@langchain/langgraph-checkpoint-validation";
import { PostgresSaver } from "agentrt/checkpointers";
import { useTestSchema } from "../../helpers/postgres.js";

const schema = useTestSchema(import.meta.url);

// A neutral name: the suite skips tests by the official savers' package names.
const initializer: CheckpointSaverTestInitializer<PostgresSaver> = {
  checkpointerName: "agentrt PostgresSaver",
  async createCheckpointer() {
    const saver = PostgresSaver.fromConnString(schema.fresh("v").url);
    await saver.setup();
    return saver;
  },
  async destroyCheckpointer(saver) {
    await saver.close();
  },
};

validate(initializer);
deltaChannelHistoryTests(initializer);
