/**
 * The `checkpoints.checkpoint` document (LangGraph's Checkpoint without its channel values) carries its
 * format version under `"$v"`, and each version is read by its own schema. Version 1 also names the codec
 * format of the values the checkpoint wrote: a blob's `type` is the serde's tag, prefixed `z:` when the
 * bytes are raw-deflated (see codec.ts). Rows written before versions existed carry none: version 0, the
 * same skeleton and the same codec format. Blobs outlive the checkpoint that wrote them (later checkpoints
 * share them), so a future codec format must also mark the blobs it writes, not only this document.
 * @module
 */
import type { Checkpoint } from "@langchain/langgraph-checkpoint";
import { z } from "zod";
import { StorageError } from "../../src/errors.js";

/** The skeleton format this saver writes. */
const SKELETON_FORMAT = 1;

const version = z.union([z.string(), z.number()]);
// Loose: LangGraph adds fields across its own format versions (`pending_sends` before v4); they pass through.
const fields = {
  v: z.number().int(),
  id: z.string(),
  ts: z.string(),
  channel_versions: z.record(z.string(), version),
  versions_seen: z.record(z.string(), z.record(z.string(), version)),
};

const VERSIONS: readonly z.ZodType<Omit<Checkpoint, "channel_values">>[] = [
  // v0: written before skeletons carried a version (checkpoints module schema v1, agentrt ≤ 2026-12-01).
  z.looseObject(fields),
  z.looseObject({ $v: z.literal(1), ...fields }).transform(({ $v: _format, ...skeleton }) => skeleton),
];

type Versions = Record<string, string | number>;

const isVersion = (value: unknown): boolean => typeof value === "string" || typeof value === "number";

/** A JSON object (JSON.parse makes no other kind of non-array object). */
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

function isVersions(value: unknown): value is Versions {
  if (!isRecord(value)) return false;
  for (const key in value) if (!isVersion(value[key])) return false;
  return true;
}

/** What the current format's zod schema accepts, for a document JSON.parse made. */
function isSkeleton(doc: unknown): doc is Omit<Checkpoint, "channel_values"> & { $v?: number } {
  if (!isRecord(doc)) return false;
  const { v, id, ts, channel_versions: versions, versions_seen: seen } = doc;
  if (typeof v !== "number" || !Number.isInteger(v) || typeof id !== "string" || typeof ts !== "string" || !isVersions(versions) || !isRecord(seen)) return false;
  for (const key in seen) if (!isVersions(seen[key])) return false;
  return true;
}

/** The skeleton column as written today. */
export function encodeSkeleton(skeleton: Omit<Checkpoint, "channel_values">): string {
  return JSON.stringify({ $v: SKELETON_FORMAT, ...skeleton });
}

/** Reads a stored skeleton by the schema of its own version; `channel_values` is left for the caller to fill. */
export function parseSkeleton(text: string, checkpointId: string): Checkpoint {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw new StorageError("DB_CORRUPT", `checkpoint ${checkpointId}: its skeleton is not JSON`, { cause: error, details: { checkpointId } });
  }
  return readSkeleton(doc, checkpointId);
}

/** {@link parseSkeleton} for a document already parsed (a JSONB column); the document becomes the checkpoint. */
export function readSkeleton(doc: unknown, checkpointId: string): Checkpoint {
  const format = typeof doc === "object" && doc !== null && "$v" in doc ? (doc).$v : 0;
  if ((format === SKELETON_FORMAT || format === 0) && isSkeleton(doc)) {
    // The shape zod would accept (checked by hand: a zod parse costs more than the whole JSON.parse); zod runs only to word a refusal.
    const { $v: _format, ...skeleton } = doc;
    const checkpoint = skeleton as Checkpoint;
    checkpoint.channel_values = {};
    return checkpoint;
  }
  const schema = typeof format === "number" && Number.isInteger(format) && format >= 0 ? VERSIONS[format] : undefined;
  if (schema === undefined) {
    const known = VERSIONS.length - 1;
    if (typeof format === "number" && format > known) {
      throw new StorageError("DB_SCHEMA_TOO_NEW", `checkpoint ${checkpointId}: skeleton format ${format} is newer than this agentrt knows (${known})`, {
        details: { checkpointId, version: format, known },
      });
    }
    throw new StorageError("DB_CORRUPT", `checkpoint ${checkpointId}: unreadable skeleton format ${JSON.stringify(format)}`, { details: { checkpointId } });
  }
  const parsed = schema.safeParse(doc);
  if (!parsed.success) {
    throw new StorageError("DB_CORRUPT", `checkpoint ${checkpointId}: unreadable skeleton (format ${String(format)}): ${z.prettifyError(parsed.error)}`, {
      cause: parsed.error,
      details: { checkpointId, version: format },
    });
  }
  return { ...parsed.data, channel_values: {} };
}
