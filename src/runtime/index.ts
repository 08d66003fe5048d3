/** The runtime: runs over graphs listed in langgraph.json, on one SQLite file. */
export { Runtime } from "./runtime.js";
export type { RuntimeOptions, SubmitOptions, DecisionOptions, InputOptions, CanceledRunView } from "./runtime-options.js";
export type { InputRequest, InputResume } from "./input-resume.js";
export type { SideEffectView } from "./side-effects.js";
export { GraphRegistry, stateKeys } from "./graph-registry.js";
export { assertKnownInputKeys, threadValues, validateGraphInput } from "./graph-input.js";
export type { GraphInputOptions } from "./graph-input.js";
export type { GraphEntry, RegisteredGraph } from "./graph-registry.js";
export { toRunView } from "./run-view.js";
export { RunReader, runViewOf } from "./run-reader.js";
export type { RunSource } from "./run-reader.js";
export type { RunView, PendingActionView } from "./run-view.js";
export type { RuntimeEvent, RuntimeListener } from "./runtime-events.js";
export { StreamBus } from "./stream-bus.js";
export type { StreamChunk, StreamListener, StreamBusOptions } from "./stream-bus.js";
