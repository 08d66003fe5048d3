import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

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
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Most files wait on child processes, servers and fsync rather than on the CPU: two forks even on a
    // 2-core machine cut the suite by about a sixth (vitest's default there is one).
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
