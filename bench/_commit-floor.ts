// The fastest any saver that commits each put can go on this machine: bare one-row transactions
// (BEGIN IMMEDIATE, INSERT a checkpoint-sized row, COMMIT) on a file opened like agentrt's.
import { join } from "node:path";
import { openDatabase } from "../src/db/index.js";

/** One-row transactions per second on a fresh file in `dir` (WAL, synchronous=NORMAL), `rowBytes` per row. */
export function commitFloor(dir: string, count = 5000, rowBytes = 1500): number {
  const db = openDatabase(join(dir, "commit-floor.db"));
  try {
    db.exec("CREATE TABLE rows (thread TEXT, ns TEXT, id TEXT, value BLOB, PRIMARY KEY (thread, ns, id))");
    const insert = db.prepare("INSERT INTO rows VALUES (?, ?, ?, ?)");
    const once = db.transaction((i: number, value: Buffer) => insert.run("t", "", String(i).padStart(10, "0"), value));
    const value = Buffer.alloc(rowBytes, 120);
    for (let i = 0; i < 200; i++) once.immediate(i, value);
    const start = performance.now();
    for (let i = 200; i < 200 + count; i++) once.immediate(i, value);
    return (count * 1000) / (performance.now() - start);
  } finally {
    db.close();
  }
}
