import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { testKinds } from "./test/setup/test-kinds.js";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const kinds = testKinds(here("."));

export default defineConfig({
  resolve: {
    alias: [
      { find: /^agentrt$/, replacement: here("./src/index.ts") },
      { find: /^agentrt\/checkpointers$/, replacement: here("./checkpointers/index.ts") },
      { find: /^agentrt\/testing$/, replacement: here("./src/testing/index.ts") },
      { find: /^agentrt\/tools$/, replacement: here("./src/entrypoints/tools.ts") },
      { find: /^agentrt\/graph$/, replacement: here("./src/entrypoints/graph.ts") },
      { find: /^agentrt\/resilience$/, replacement: here("./src/entrypoints/resilience.ts") },
      { find: /^agentrt\/trace$/, replacement: here("./src/entrypoints/trace.ts") },
      { find: /^agentrt\/db$/, replacement: here("./src/entrypoints/db.ts") },
      { find: /^agentrt\/workspace$/, replacement: here("./src/entrypoints/workspace.ts") },
    ],
  },
  test: {
    // The LangGraph checkpoint validation suite registers its tests through vitest globals.
    globals: true,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Most files wait on child processes, servers and fsync rather than on the CPU: two forks even on a
    // 2-core machine cut the suite by about a sixth (vitest's default there is one).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    reporters: ["default", "./test/setup/slowest-reporter.ts"],
    projects: [
      {
        extends: true,
        // In-process files share a worker: LangChain is imported once per worker instead of once per file
        // (test/setup/test-kinds.ts says which), and each file's environment variables are put back after it.
        test: { name: "unit", include: kinds.unit, isolate: false, setupFiles: ["./test/setup/restore-env.ts"] },
      },
      { extends: true, test: { name: "integration", include: kinds.integration } },
    ],
  },
});
