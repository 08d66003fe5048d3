/**
 * Tools that let the model keep files in its run's workspace:
 * `workspace_read`, `workspace_write`, `workspace_list`.
 * @module
 */
import { z } from "zod";
import { type AgentTool, defineTool } from "../tools/define-tool.js";
import { Workspace, type WorkspaceEntry, type WorkspaceOptions } from "./workspace.js";

/** Where the workspaces live and how big they may grow. */
export interface WorkspaceToolsOptions extends WorkspaceOptions {
  /** Directory holding one subdirectory per run. @default "./workspaces" */
  rootDir?: string;
}

/** The three workspace tools. */
export interface WorkspaceTools {
  workspaceRead: AgentTool<z.ZodObject<{ path: z.ZodString }>, { path: string; content: string }>;
  workspaceWrite: AgentTool<z.ZodObject<{ path: z.ZodString; content: z.ZodString }>, { path: string; bytes: number }>;
  workspaceList: AgentTool<
    z.ZodObject<{ path: z.ZodOptional<z.ZodString>; recursive: z.ZodOptional<z.ZodBoolean> }>,
    { entries: WorkspaceEntry[] }
  >;
}

const PATH = z.string().min(1).max(1024).describe("Path relative to the run's workspace, e.g. notes/summary.md");

/**
 * Builds the workspace tools; each call works in the workspace of `ctx.runId`,
 * so runs never see each other's files.
 * @example
 * const { workspaceRead, workspaceWrite, workspaceList } = workspaceTools({ rootDir: "./workspaces" });
 * registry.register(workspaceRead, workspaceWrite, workspaceList);
 */
export function workspaceTools(options: WorkspaceToolsOptions = {}): WorkspaceTools {
  const rootDir = options.rootDir ?? "./workspaces";
  const forRun = (runId: string) => Workspace.forRun(rootDir, runId, options);
  return {
    workspaceRead: defineTool({
      name: "workspace_read",
      description: "Read a UTF-8 text file from this run's workspace.",
      risk: "read",
      schema: z.object({ path: PATH }),
      execute: async ({ path }, ctx) => ({ path, content: await forRun(ctx.runId).read(path) }),
    }),
    workspaceWrite: defineTool({
      name: "workspace_write",
      description: "Create or replace a UTF-8 text file in this run's workspace (parent folders are created).",
      risk: "write",
      // Writing the same content to the same path twice leaves the same workspace.
      idempotent: true,
      schema: z.object({ path: PATH, content: z.string() }),
      execute: async ({ path, content }, ctx) => forRun(ctx.runId).write(path, content),
    }),
    workspaceList: defineTool({
      name: "workspace_list",
      description: "List files and folders in this run's workspace (the root by default).",
      risk: "read",
      schema: z.object({
        path: PATH.optional(),
        recursive: z.boolean().optional().describe("Also list subfolders' contents"),
      }),
      execute: async ({ path, recursive }, ctx) => ({
        entries: await forRun(ctx.runId).list(path ?? ".", { recursive: recursive ?? false }),
      }),
    }),
  };
}
