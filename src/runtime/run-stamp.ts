/**
 * Stamps every checkpoint with the run that wrote it. LangGraph.js copies
 * `configurable.run_id` into the config's metadata but not into checkpoint
 * metadata; with it there, the executor tells a thread's new turn (the latest
 * checkpoint belongs to an earlier run) from a recovery of this run.
 * @module
 */
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";

/** Makes `saver.put` record `metadata.run_id` from `config.configurable.run_id` (when it is a string); returns the saver. */
export function stampRunIds<T extends BaseCheckpointSaver>(saver: T): T {
  const proto = Object.getPrototypeOf(saver) as BaseCheckpointSaver;
  // Resolved per call, so a later patch of the class's put (tests' fault injection) still applies.
  saver.put = (config, checkpoint, metadata, newVersions) => {
    const runId: unknown = config.configurable?.run_id;
    const stamped = typeof runId === "string" ? { ...metadata, run_id: runId } : metadata;
    return proto.put.call(saver, config, checkpoint, stamped, newVersions);
  };
  return saver;
}

/** The run that wrote a checkpoint (undefined for checkpoints written before stamping, or outside a run). */
export function checkpointRunId(metadata: unknown): string | undefined {
  const runId = (metadata as { run_id?: unknown } | undefined)?.run_id;
  return typeof runId === "string" ? runId : undefined;
}
