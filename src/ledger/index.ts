/**
 * The side-effect ledger (module `ledger`, table `tool_ledger`): an intent before each side-effecting call, its
 * result after, so a retry, a resume or another process never performs it twice.
 * @module
 */
export { ledgerKey, unknownOutcomeError } from "./ledger.js";
export { SqliteToolLedger } from "./sqlite-ledger.js";
export type { LedgerBegin, LedgerBeginInput, LedgerKeyParts, LedgerEntry, LedgerStatus, LedgerTransaction, ToolLedger } from "./ledger.js";
export { callThroughLedger, isDefiniteFailure, LedgerWriteError } from "./call.js";
export type { LedgerCallOptions, LedgerCallOutcome, LedgerCallResult } from "./call.js";
export { ledgerFor, isUnknownOutcome, unknownOutcomeOf, withLedger } from "./executor.js";
export type { UnknownOutcomeInfo } from "./executor.js";
