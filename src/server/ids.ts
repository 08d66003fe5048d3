/**
 * Assistant ids: one assistant per graph, with the uuid the official Agent
 * Server derives from the graph id (uuid v5 in its graph namespace), so
 * Studio links and SDK code written against `langgraph dev` keep working.
 * @module
 */
import { createHash, randomUUID } from "node:crypto";

const GRAPH_NAMESPACE = "6ba7b821-9dad-11d1-80b4-00c04fd430c8";

/** RFC 4122 uuid v5 of `name` in `namespace`. */
export function uuidV5(name: string, namespace: string = GRAPH_NAMESPACE): string {
  const ns = Buffer.from(namespace.replace(/-/g, ""), "hex");
  const bytes = createHash("sha1").update(ns).update(name, "utf8").digest().subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The stable assistant id of a graph. */
export function assistantIdFor(graphId: string): string {
  return uuidV5(graphId);
}

/** A new thread id (a uuid, as the official server issues). */
export function newThreadId(): string {
  return randomUUID();
}
