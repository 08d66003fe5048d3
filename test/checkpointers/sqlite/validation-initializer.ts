// The validation suite's initializer for agentrt's SqliteSaver: a fresh file-backed saver per checkpointer,
// shared by the suite's runs in each durability mode.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CheckpointSaverTestInitializer } from "@langchain/langgraph-checkpoint-validation";
import { SqliteSaver, type SqliteDurability } from "agentrt/checkpointers";

/** An initializer named `checkpointerName` whose savers use `durability`, each on its own file in a temp dir. */
export function fileSaverInitializer(checkpointerName: string, durability: SqliteDurability): CheckpointSaverTestInitializer<SqliteSaver> {
  let dir = "";
  let count = 0;
  return {
    checkpointerName,
    beforeAll() {
      dir = mkdtempSync(join(tmpdir(), "agentrt-validation-"));
    },
    afterAll() {
      rmSync(dir, { recursive: true, force: true });
    },
    createCheckpointer() {
      count += 1;
      return SqliteSaver.create({ path: join(dir, `saver-${count}.db`), durability });
    },
    destroyCheckpointer(saver) {
      saver.close();
    },
  };
}
