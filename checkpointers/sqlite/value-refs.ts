/**
 * A checkpoint's refs (checkpoints schema v2 and v3, see schema.ts): for every channel in its channel_versions, where
 * its value is. `[value row id, version]` names a row of checkpoint_blobs, the id null when that version has no stored
 * value (an empty channel, a DeltaChannel between snapshots): recording the absence too lets a child inherit it
 * instead of searching. `[holder, version, index]` (v3) names element `index` of the `vals` array of checkpoint
 * `holder` of the same thread and namespace, `""` for the row itself.
 * @module
 */
import type { Statements } from "./statements.js";

/** A ref to element `index` of the `vals` of checkpoint `holder` ({@link SELF}: the row itself). */
export type InlineRef = [holder: string, version: string | number, index: number];
/** Where one channel's value is: a value row (or none), or an element of a checkpoint row's `vals`. */
export type Ref = [id: number | null, version: string | number] | InlineRef;
/** channel → its {@link Ref}. */
export type Refs = Record<string, Ref>;

/** The holder of a ref to the row's own `vals`. */
export const SELF = "";

/** A ref to a `vals` element: its holder (never {@link SELF}: resolved against `rowId`) and index. */
export function inlineOf(ref: Ref, rowId: string): { holder: string; index: number } | undefined {
  if (ref.length !== 3) return undefined;
  return { holder: ref[0] === SELF ? rowId : ref[0], index: ref[2] };
}

/** A checkpoint's stored refs; none for a missing row. */
export function parseRefs(text: string | null | undefined): Refs;
/** As above, but null for a missing row when asked. */
export function parseRefs(text: string | null | undefined, missing: null): Refs | null;
export function parseRefs(text: string | null | undefined, missing: Refs | null = {}): Refs | null {
  return text === null || text === undefined ? missing : (JSON.parse(text) as Refs);
}

/** The value row ids a checkpoint's refs name (not its inline values). */
export function valueRowIds(refs: Refs): number[] {
  const ids: number[] = [];
  for (const ref of Object.values(refs)) {
    const id = valueRowOf(ref);
    if (id !== null) ids.push(id);
  }
  return ids;
}

/** What a put needs to name its values: where it sits, and what it changed. */
export interface RefsInput {
  thread: string;
  ns: string;
  parentId: string | null;
  /** The checkpoint's channel_versions. */
  versions: Record<string, string | number>;
  /** The put's newVersions: its own keys are the channels it changed. */
  changed: Readonly<Record<string, unknown>> | undefined;
  /** The refs of the values this put stored (a value row, or its own `vals`), by channel. */
  stored: Map<string, Ref>;
  /** The parent row's stored refs when already known (refs-memo.ts): then its row is not read. */
  parentRefs?: Refs;
}

/**
 * The refs of a new checkpoint: its own values for changed channels, the parent's refs for the others (a parent's
 * own inline value becomes a ref to the parent). A channel whose version is not the parent's although it is not in
 * newVersions has no value (LangGraph never puts one; a key index would have found none either unless some other
 * checkpoint stored exactly that version). With no parent row (a config naming no checkpoint, or one not stored) a
 * value of the version is looked for in the thread's newest checkpoints' refs: a value unchanged since long ago is in
 * all of them.
 */
export function resolveRefs(st: Statements, input: RefsInput): Refs {
  const { thread, ns, parentId, versions, changed, stored, parentRefs: known } = input;
  const refs: Refs = {};
  /** null: no parent row. */
  let parentRefs: Refs | null | undefined;
  for (const channel in versions) {
    const version = versions[channel];
    if (version === undefined) continue;
    if (changed !== undefined && Object.prototype.hasOwnProperty.call(changed, channel)) {
      refs[channel] = stored.get(channel) ?? [null, version];
      continue;
    }
    parentRefs ??= parentId === null ? null : (known ?? parseRefs(st.refsOf.get(thread, ns, parentId), null));
    if (parentRefs === null || parentId === null) {
      const found = st.refByVersion.get({ thread, ns, channel, version });
      refs[channel] = found === undefined ? [null, version] : rebased(JSON.parse(found.ref) as Ref, found.holder);
      continue;
    }
    const inherited = parentRefs[channel];
    refs[channel] = inherited !== undefined && inherited[1] === version ? rebased(inherited, parentId) : [null, version];
  }
  return refs;
}

/** A ref read from checkpoint `holder`, as another row of the thread names it. */
function rebased(ref: Ref, holder: string): Ref {
  return ref.length === 3 && ref[0] === SELF ? [holder, ref[1], ref[2]] : ref;
}

/** The value row a ref names; null for none, or for an inline value. */
export function valueRowOf(ref: Ref): number | null {
  return ref.length === 2 ? ref[0] : null;
}
