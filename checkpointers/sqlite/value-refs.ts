/**
 * A checkpoint's refs (checkpoints schema v2, see schema.ts): for every channel in its channel_versions,
 * `[value row id, version]`, the id null when that version has no stored value (an empty channel, a
 * DeltaChannel between snapshots). Recording the absence too lets a child inherit it instead of searching.
 * @module
 */
import type { Statements } from "./statements.js";

/** channel → [value row id or null, version]. */
export type Refs = Record<string, [number | null, string | number]>;

/** A checkpoint's stored refs; none for a missing row. */
export function parseRefs(text: string | null | undefined): Refs;
/** As above, but null for a missing row when asked. */
export function parseRefs(text: string | null | undefined, missing: null): Refs | null;
export function parseRefs(text: string | null | undefined, missing: Refs | null = {}): Refs | null {
  return text === null || text === undefined ? missing : (JSON.parse(text) as Refs);
}

/** What a put needs to name its values: where it sits, and what it changed. */
export interface RefsInput {
  thread: string;
  ns: string;
  parentId: string | null;
  /** The checkpoint's channel_versions. */
  versions: Record<string, string | number>;
  /** Channels in newVersions. */
  changed: Set<string>;
  /** Row ids of the values this put stored, by channel. */
  stored: Map<string, number>;
}

/**
 * The refs of a new checkpoint: its own values for changed channels, the parent's refs for the others.
 * A channel whose version is not the parent's although it is not in newVersions has no value (LangGraph
 * never puts one; a key index would have found none either unless some other checkpoint stored exactly that
 * version). With no parent row (a config naming no checkpoint, or one not stored) a value of the version is
 * looked for in the thread's newest checkpoints' refs: a value unchanged since long ago is in all of them.
 */
export function resolveRefs(st: Statements, input: RefsInput): Refs {
  const { thread, ns, parentId, versions, changed, stored } = input;
  const refs: Refs = {};
  /** null: no parent row. */
  let parentRefs: Refs | null | undefined;
  for (const channel in versions) {
    const version = versions[channel];
    if (version === undefined) continue;
    if (changed.has(channel)) {
      refs[channel] = [stored.get(channel) ?? null, version];
      continue;
    }
    parentRefs ??= parentId === null ? null : parseRefs(st.refsOf.get(thread, ns, parentId), null);
    if (parentRefs === null) {
      refs[channel] = [st.refByVersion.get({ thread, ns, channel, version }) ?? null, version];
      continue;
    }
    const inherited = parentRefs[channel];
    refs[channel] = inherited !== undefined && inherited[1] === version ? inherited : [null, version];
  }
  return refs;
}
