/**
 * `agentrt/workspace` — a directory an agent may read and write through tools, confined to it (no `..`, no links
 * out, size limits), with `workspace_read`/`workspace_write`/`workspace_list` ready to give `defineAgent`.
 * @module
 */
export { Workspace } from "../workspace/workspace.js";
export type { WorkspaceOptions, WorkspaceEntry } from "../workspace/workspace.js";
export { workspaceTools } from "../workspace/workspace-tools.js";
export type { WorkspaceTools, WorkspaceToolsOptions } from "../workspace/workspace-tools.js";
