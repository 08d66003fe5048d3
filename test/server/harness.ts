// Shared setup of the server tests: a temp SQLite file (or a PostgreSQL schema), a langgraph.json naming the repo's
// ops_rollback graph (or the graphs a test names), a server on port 0.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll } from "vitest";
import { startServer, type AgentServer, type ServeOptions } from "../../src/server/server.js";
import { useTestSchema } from "../helpers/postgres.js";

/** Absolute path of a repo graph file. */
export const graphFile = (name: string): string => fileURLToPath(new URL(`../../graphs/${name}.ts`, import.meta.url));

/** The `graph` export of a repo graph (graphs/) or a test fixture (test/server/fixtures/), as langgraph.json names it. */
export const graphEntry = (name: string): string => `${graphFile(name)}:graph`;
export const fixtureEntry = (name: string): string => `${fileURLToPath(new URL(`./fixtures/${name}.ts`, import.meta.url))}:graph`;

/** langgraph.json graphs of a test project: ops_rollback, and a graph whose file is missing. */
const DEFAULT_GRAPHS = { ops_rollback: graphEntry("ops_rollback"), broken: "./missing.ts:graph" };

/** A fresh directory with a langgraph.json listing `graphs`. */
export function tempProject(graphs: Record<string, string> = DEFAULT_GRAPHS): { dir: string; db: string; config: string } {
  const dir = mkdtempSync(join(tmpdir(), "agentrt-server-"));
  const config = join(dir, "langgraph.json");
  writeFileSync(config, JSON.stringify({ graphs }));
  return { dir, db: join(dir, "agentrt.db"), config };
}

/** A database the server's contract tests run on, for describe.each: `db()` names a fresh, empty one. */
export interface ServerBackend {
  readonly backend: "sqlite" | "postgres";
  db(): string;
}

/**
 * SQLite (a temp file) and PostgreSQL (a fresh schema of this test file, dropped after it): the server's contract
 * holds on both. Call at the top level of a test file (it registers the schema's hooks).
 * @example describe.each(serverBackends(import.meta.url))("on $backend", ({ db }) => { ... startTestServer({ db: db() }) ... })
 */
export function serverBackends(file: string): ServerBackend[] {
  const schema = useTestSchema(file);
  return [
    { backend: "sqlite", db: () => tempProject().db },
    { backend: "postgres", db: () => schema.fresh("s").url },
  ];
}

/** Starts a server over a fresh project listing `graphs`; `options.db` (a backend's) replaces the project's file. */
export async function startTestServer(
  options: ServeOptions = {}, graphs?: Record<string, string>,
): Promise<{ server: AgentServer; client: Client; project: ReturnType<typeof tempProject> }> {
  const project = tempProject(graphs);
  if (options.db !== undefined) project.db = options.db;
  const server = await startServer({ port: 0, db: project.db, config: project.config, log: () => undefined, apiKey: "", ...options });
  return { server, client: new Client({ apiUrl: server.url, apiKey: options.apiKey ?? null }), project };
}

/** One server for a whole test file, started before its tests and closed after them; read its fields inside tests. */
export function testServerForFile(options: ServeOptions = {}, graphs?: Record<string, string>): { server: AgentServer; client: Client } {
  const shared = {} as { server: AgentServer; client: Client };
  beforeAll(async () => {
    Object.assign(shared, await startTestServer(options, graphs));
  });
  afterAll(async () => {
    await shared.server.close();
  });
  return shared;
}

/** The user message that makes ops_rollback ask for a rollback. */
export const ROLLBACK_INPUT = { messages: [{ role: "user", content: "Why did the payments deploy fail? Roll back if needed." }] };

/** A pending approval as it appears in interrupts. */
export interface Approval {
  action_id: string;
  args_hash: string;
  tool: string;
  args: Record<string, unknown>;
}
