// The memory store conformance suite on SQLite: a store on a shared connection, one that opens its own file, and
// LangGraph's InMemoryStore as the reference for the BaseStore contract part.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InMemoryStore } from "@langchain/langgraph-checkpoint";
import { afterEach, beforeEach } from "vitest";
import { openDatabase } from "../../src/db/index.js";
import { SqliteStore } from "../../src/memory/sqlite-store.js";
import { describeBaseStoreContract, describeStoreConformance } from "./conformance/store.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "agentrt-memory-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describeBaseStoreContract("InMemoryStore (reference)", async () => {
  const store = new InMemoryStore();
  return { store, openAnother: async () => store, close: async () => undefined };
});

describeStoreConformance("SqliteStore on a shared connection", async (options) => {
  const db = openDatabase(join(dir, "run.db"));
  return { store: new SqliteStore(db, options), openAnother: async (more) => new SqliteStore(db, more), close: async () => void db.close() };
});

describeStoreConformance("SqliteStore opened from a path", async (options) => {
  const path = join(dir, "own.db");
  const stores = [new SqliteStore(path, options)];
  return {
    store: stores[0]!,
    openAnother: async (more) => {
      stores.push(new SqliteStore(path, more));
      return stores.at(-1)!;
    },
    close: async () => stores.forEach((s) => s.close()),
  };
});
