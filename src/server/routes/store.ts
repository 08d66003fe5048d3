/**
 * The Agent Server's store endpoints — the SDK's `client.store`, Studio's
 * memory view — on the memory store the runtime gives every graph as
 * `config.store`: an item put here is what a node reads, and what a node
 * saved is listed here. Items carry `created_at`/`updated_at`; a missing
 * item is `null`, as on the official server.
 * @module
 */
import { InvalidNamespaceError, validateNamespace, type Item } from "@langchain/langgraph-checkpoint";
import { Hono, type Context } from "hono";
import type { MemoryStore } from "../../memory/memory-store.js";
import { readBody, type ServerEnv } from "../context.js";
import { HttpError } from "../http-error.js";
import { assertMayUseNamespace, namespaceFilter, visiblePage } from "../ownership.js";
import { StoreDeleteItem, StoreListNamespaces, StorePutItem, StoreSearchItems } from "../schemas.js";

/** An item as the API sends it: snake_case timestamps. */
function itemToWire(item: Item & { score?: number }): Record<string, unknown> {
  const { createdAt, updatedAt, ...rest } = item;
  return { ...rest, created_at: createdAt, updated_at: updatedAt };
}

/** LangGraph's own namespace rules (the reserved "langgraph" root, ":" …) answer 422 like the schema's. */
async function storeCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof InvalidNamespaceError) throw new HttpError(422, "BAD_INPUT", `invalid namespace: ${error.message}`);
    throw error;
  }
}

/** GET's namespace is one query parameter, its labels joined with ".". */
function queryNamespace(c: Context<ServerEnv>): string[] {
  const joined = c.req.query("namespace") ?? "";
  const namespace = joined.split(".");
  if (joined === "" || namespace.some((label) => label === "")) {
    throw new HttpError(422, "BAD_INPUT", `query parameter namespace must be labels joined with ".", got "${joined}"`);
  }
  return namespace;
}

/** Routes under /store. */
export function storeRoutes(store: MemoryStore): Hono<ServerEnv> {
  const app = new Hono<ServerEnv>();
  app.put("/store/items", async (c) => {
    const body = await readBody(c, StorePutItem);
    assertMayUseNamespace(body.namespace, c.get("caller"));
    const ttlMs = body.ttl == null ? undefined : Math.round(body.ttl * 60_000);
    await storeCall(() => store.put(body.namespace, body.key, body.value, body.index ?? undefined, { ttlMs }));
    return c.body(null, 204);
  });
  app.get("/store/items", async (c) => {
    const namespace = queryNamespace(c);
    const key = c.req.query("key");
    if (key === undefined || key === "") throw new HttpError(422, "BAD_INPUT", "query parameter key is required");
    assertMayUseNamespace(namespace, c.get("caller"));
    const item = await storeCall(() => store.get(namespace, key));
    return c.json(item === null ? null : itemToWire(item));
  });
  app.delete("/store/items", async (c) => {
    const body = await readBody(c, StoreDeleteItem);
    assertMayUseNamespace(body.namespace, c.get("caller"));
    // As strict as a put: the reserved "langgraph" root is refused, not deleted from.
    await storeCall(async () => {
      validateNamespace(body.namespace);
      await store.delete(body.namespace, body.key);
    });
    return c.body(null, 204);
  });
  app.post("/store/items/search", async (c) => {
    const body = await readBody(c, StoreSearchItems);
    const caller = c.get("caller");
    // Under another user's namespace: refused; wider (no prefix, ["users"]): their items are left out.
    assertMayUseNamespace(body.namespace_prefix, caller);
    const keep = namespaceFilter(caller);
    const items = await visiblePage((offset, limit) => storeCall(() => store.search(body.namespace_prefix, {
      filter: body.filter ?? undefined, limit, offset, query: body.query ?? undefined,
    })), keep && ((item) => keep(item.namespace)), body.offset, body.limit);
    return c.json({ items: items.map(itemToWire) });
  });
  app.post("/store/namespaces", async (c) => {
    const body = await readBody(c, StoreListNamespaces);
    const caller = c.get("caller");
    if (body.prefix != null) assertMayUseNamespace(body.prefix, caller);
    const namespaces = await visiblePage((offset, limit) => storeCall(() => store.listNamespaces({
      prefix: body.prefix ?? undefined, suffix: body.suffix ?? undefined, maxDepth: body.max_depth ?? undefined, limit, offset,
    })), namespaceFilter(caller), body.offset, body.limit);
    return c.json({ namespaces });
  });
  return app;
}
