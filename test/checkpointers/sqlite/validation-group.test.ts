// LangGraph's conformance suite and DeltaChannel history tests again, on savers with the
// opt-in `durability: "group"`: queued writes must be invisible to no caller.
import { deltaChannelHistoryTests, validate } from "@langchain/langgraph-checkpoint-validation";
import { fileSaverInitializer } from "./validation-initializer.js";

const initializer = fileSaverInitializer("agentrt SqliteSaver (group commit)", "group");

validate(initializer);
deltaChannelHistoryTests(initializer);
