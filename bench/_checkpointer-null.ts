// A saver that stores nothing: a graph compiled with it pays LangGraph's own checkpointing
// (channel versions, checkpoint copies, put/putWrites calls) but no storage at all.
import type { RunnableConfig } from "@langchain/core/runnables";
import { BaseCheckpointSaver, type Checkpoint, type CheckpointTuple } from "@langchain/langgraph-checkpoint";

/** LangGraph's checkpointing cost without storage: the floor under any real saver. */
export class NullSaver extends BaseCheckpointSaver {
  override async getTuple(): Promise<CheckpointTuple | undefined> {
    return undefined;
  }

  override async *list(): AsyncGenerator<CheckpointTuple> {}

  override async put(config: RunnableConfig, checkpoint: Checkpoint): Promise<RunnableConfig> {
    return { configurable: { ...config.configurable, checkpoint_id: checkpoint.id } };
  }

  override async putWrites(): Promise<void> {}

  override async deleteThread(): Promise<void> {}
}
