import { describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/index.js";
import { atomically } from "../../src/db/in-transaction.js";
import { immediateTransaction } from "../../src/db/immediate-transaction.js";

describe("atomically", () => {
  it("commits on its own, and inside a caller's transaction rolls back only its own writes when it throws", () => {
    const db = openDatabase(":memory:");
    db.exec("CREATE TABLE t (v INTEGER)");
    atomically(db, () => db.prepare("INSERT INTO t VALUES (1)").run());
    expect(db.inTransaction).toBe(false);
    immediateTransaction(db, () => {
      for (let i = 0; i < 3; i++) {
        // The same cached savepoint wrapper serves each nested unit.
        expect(() => atomically(db, () => {
          db.prepare("INSERT INTO t VALUES (99)").run();
          throw new Error("refused");
        })).toThrow("refused");
        atomically(db, () => db.prepare("INSERT INTO t VALUES (?)").run(i + 2));
      }
      expect(db.inTransaction).toBe(true);
    })();
    expect((db.prepare("SELECT v FROM t ORDER BY v").pluck().all())).toEqual([1, 2, 3, 4]);
    db.close();
  });
});
