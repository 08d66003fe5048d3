/**
 * The checks every memory store makes on an operation before touching its database, so both backends refuse
 * the same input with the same error.
 * @module
 */
import type { Operation, PutOperation } from "@langchain/langgraph-checkpoint";
import { MAX_JSON_DEPTH, nestedDeeperThan } from "../db/index.js";
import { UserInputError } from "../errors.js";
import { checkNamespace } from "./namespace-sql.js";

/** A put that may carry its own time to live (null: never expires). */
export interface TtlPutOperation extends PutOperation {
  ttlMs?: number | null;
}

/** Refuses an operation no memory store accepts, with InvalidNamespaceError or BAD_INPUT, before any statement runs. */
export function validateOperation(op: Operation): void {
  if ("namespacePrefix" in op) {
    checkNamespace(op.namespacePrefix, true);
    return;
  }
  if (!("namespace" in op)) return;
  checkNamespace(op.namespace);
  if ("value" in op && op.value !== null && (typeof op.value !== "object" || Array.isArray(op.value))) {
    throw new UserInputError("BAD_INPUT", "store put: value must be a JSON object or null");
  }
  if ("value" in op && op.value !== null && nestedDeeperThan(op.value)) {
    throw new UserInputError("BAD_INPUT", `store put: value is nested deeper than ${MAX_JSON_DEPTH} levels`);
  }
  const ttl = (op as TtlPutOperation).ttlMs;
  if (ttl !== undefined && ttl !== null && !(ttl > 0)) {
    throw new UserInputError("BAD_INPUT", `store put: ttlMs must be positive, got ${ttl}`);
  }
}
