// LangGraph's own conformance suite (718 tests) plus its opt-in DeltaChannel history tests,
// run against a fresh file-backed SqliteSaver per checkpointer.
import { deltaChannelHistoryTests, validate } from "@langchain/langgraph-checkpoint-validation";
import { fileSaverInitializer } from "./validation-initializer.js";

// A neutral name: the suite skips "only store changed channel_values" for the official saver's name.
const initializer = fileSaverInitializer("agentrt SqliteSaver", "commit");

validate(initializer);
deltaChannelHistoryTests(initializer);
