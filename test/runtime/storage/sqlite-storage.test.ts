/** The SQLite runtime storage: closing it closes the checkpoint savers it made, so their read caches go with it. */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { SqliteSaver } from "../../../checkpointers/index.js";
import { openSqliteStorage } from "../../../src/runtime/storage/sqlite-storage.js";

describe("SQLite runtime storage", () => {
  it("closes every saver it made while the file is still open, then the file", async () => {
    const storage = openSqliteStorage(join(mkdtempSync(join(tmpdir(), "agentrt-storage-")), "s.db"));
    const savers = [storage.checkpointer(), storage.checkpointer()];
    const fileOpenAtClose: boolean[] = [];
    for (const saver of savers) {
      expect(saver).toBeInstanceOf(SqliteSaver);
      const close = (saver as SqliteSaver).close.bind(saver);
      vi.spyOn(saver as SqliteSaver, "close").mockImplementation(() => {
        fileOpenAtClose.push((saver as SqliteSaver).db.open);
        close();
      });
    }
    await storage.close();
    expect(fileOpenAtClose).toEqual([true, true]);
    expect((savers[0] as SqliteSaver).db.open).toBe(false);
  });
});
