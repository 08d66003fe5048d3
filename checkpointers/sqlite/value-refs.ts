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
export function parseRefs(text: string | null | undefined): Refs {
  return text === null || text === undefined ? {} : (JSON.parse(text) as Refs);
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
 * The refs of a new checkpoint: its own values for changed channels; for the others the parent's ref
 * when it names the same version, else (a config naming another checkpoint, or none) any value of that
 * version the thread's checkpoints reference, found by a scan of the thread — rare, and only then.
 */
export function resolveRefs(st: Statements, input: RefsInput): Refs {
  const { thread, ns, parentId, versions, changed, stored } = input;
  const refs: Refs = {};
  let parentRefs: Refs | undefined;
  for (const channel in versions) {
    const version = versions[channel];
    if (version === undefined) continue;
    if (changed.has(channel)) {
      refs[channel] = [stored.get(channel) ?? null, version];
      continue;
    }
    parentRefs ??= parseRefs(parentId === null ? null : st.refsOf.get(thread, ns, parentId));
    const inherited = parentRefs[channel];
    refs[channel] = inherited !== undefined && inherited[1] === version ? inherited : [st.refByVersion.get({ thread, ns, channel, version }) ?? null, version];
  }
  return refs;
}
