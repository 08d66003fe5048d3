// withNestedCallHooks: a tool's nested model calls read the config from LangChain's AsyncLocalStorage, so the
// handler that reports them must be on the config found there while the tool runs, and gone once it has settled.
import { AsyncLocalStorage } from "node:async_hooks";
import type { Callbacks } from "@langchain/core/callbacks/manager";
import { AsyncLocalStorageProviderSingleton } from "@langchain/core/singletons";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { ForeignCallHooks } from "../../src/graph/foreign-call-hooks.js";
import { withNestedCallHooks } from "../../src/graph/nested-calls.js";

AsyncLocalStorageProviderSingleton.initializeGlobalInstance(new AsyncLocalStorage());
const hooks = { onModelCall: () => undefined };

function handlers(callbacks: Callbacks | undefined): readonly unknown[] {
  if (callbacks === undefined) return [];
  return Array.isArray(callbacks) ? callbacks : callbacks.handlers;
}

const seen = () => handlers(AsyncLocalStorageProviderSingleton.getRunnableConfig()?.callbacks);

describe("withNestedCallHooks", () => {
  it("puts the handler on the node's own config (the one LangGraph scoped) and takes it off after", async () => {
    const config: LangGraphRunnableConfig = { configurable: { thread_id: "t" } };
    await AsyncLocalStorageProviderSingleton.runWithConfig(config, async () => {
      const inside = await withNestedCallHooks(config, hooks, 2, async () => {
        // The same object, not a copy scoped anew: no runWithConfig of its own.
        expect(AsyncLocalStorageProviderSingleton.getRunnableConfig()).toBe(config);
        await Promise.resolve();
        return seen();
      });
      expect(inside.filter((h) => h instanceof ForeignCallHooks)).toHaveLength(1);
      expect("callbacks" in config).toBe(false);
    });
  });

  it("puts back callbacks the config had, also when the tool throws", async () => {
    const own: Callbacks = [];
    const config: LangGraphRunnableConfig = { callbacks: own };
    await AsyncLocalStorageProviderSingleton.runWithConfig(config, async () => {
      await expect(withNestedCallHooks(config, hooks, 1, async () => {
        expect(seen().some((h) => h instanceof ForeignCallHooks)).toBe(true);
        throw new Error("tool failed");
      })).rejects.toThrow("tool failed");
      expect(config.callbacks).toBe(own);
    });
  });

  it("scopes a copy with the handler when the config is not the one in AsyncLocalStorage", async () => {
    const config: LangGraphRunnableConfig = { configurable: { thread_id: "t" } };
    const inside = await withNestedCallHooks(config, hooks, 1, async () => seen());
    expect(inside.filter((h) => h instanceof ForeignCallHooks)).toHaveLength(1);
    expect("callbacks" in config).toBe(false);
  });
});
