/**
 * The trace written in the run store's own commits on SQLite (see WithinTransaction): a claim's start (root span, the
 * claim's transition) with the claim, an outcome's end (its transition, the root's end) with the outcome. On
 * PostgreSQL the store does not call `within`, and each is written after the run's commit, as before.
 * @module
 */
import type { RunRecord, WithinTransaction } from "../runs/index.js";
import type { TraceRecorder } from "../trace/index.js";
import type { ClaimDeps } from "./execute-and-record.js";
import { readStateChanges, recordStateChanges, stateChangesOf } from "./state-changes.js";

/** What starting a run's trace needs: the run store (its event log) and the recorder factory. */
export type TraceDeps = Pick<ClaimDeps, "runs" | "recorder">;

/**
 * The trace's start of a claimed run (root span, the claim's transition), written after the claim's commit:
 * a crash between the two loses only trace rows, which the next start rebuilds from run_events. The event log is
 * read first, so on SQLite the root and the transitions commit together (RecorderOptions.init).
 */
export async function startRecording(deps: TraceDeps, run: RunRecord): Promise<TraceRecorder> {
  const changes = await readStateChanges(deps.runs, run);
  const attached = await deps.recorder(run, (recorder) => recordStateChanges(recorder, changes));
  await attached.flush();
  return attached;
}

/** The trace's start of a run claimed as it is created: see {@link startWithClaim}. */
export interface ClaimStart {
  /** For `createAndClaim`: on SQLite the root and the claim's transition are written in its commit. */
  within: WithinTransaction;
  /** The recorder started in that commit, else (PostgreSQL) started now by {@link startRecording}. */
  recorder: (run: RunRecord) => Promise<TraceRecorder>;
}

/**
 * The trace's start of a run created and claimed in one commit, written in that commit on SQLite (a crash cannot
 * leave a claimed run without its trace's start); a rolled-back commit discards the recorder it made.
 */
export function startWithClaim(deps: TraceDeps): ClaimStart {
  let started: Promise<TraceRecorder | undefined> | undefined;
  return {
    within: (claimed, events) => {
      let attached: TraceRecorder | undefined;
      // Synchronous on SQLite (the store's work is done when the call returns), so inside the claim's transaction.
      const pending = deps.recorder(claimed, (recorder) => {
        attached = recorder;
        recordStateChanges(recorder, stateChangesOf(claimed, events()));
      });
      return {
        commit: () => {
          // A start that failed inside the claim's commit (its savepoint rolled back) is made again after it.
          started = pending.catch(() => {
            attached?.discard();
            return undefined;
          });
        },
        rollback: () => {
          attached?.discard();
          void pending.catch(() => undefined);
        },
      };
    },
    recorder: async (run) => (await started) ?? startRecording(deps, run),
  };
}

/** An outcome's trace written in its own commit: pass `within` to the outcome's write. */
export interface OutcomeTrace {
  /** For the outcome's transition: records the transitions and the root's end inside its transaction. */
  within: WithinTransaction;
  /** True once a commit recorded the transitions (never on PostgreSQL, whose store does not call `within`). */
  readonly recorded: boolean;
}

/**
 * The outcome's transitions (and the root's end) recorded provisionally inside the outcome's transaction: a
 * refused or rolled-back outcome leaves the recorder as it was, to record them later.
 */
export function outcomeTrace(recorder: TraceRecorder): OutcomeTrace {
  let recorded = false;
  return {
    within: (written, events) => {
      const marks = recorder.provisionally(() => recordStateChanges(recorder, stateChangesOf(written, events())));
      return {
        commit: () => {
          marks.commit();
          recorded = true;
        },
        rollback: () => marks.rollback(),
      };
    },
    get recorded() {
      return recorded;
    },
  };
}
