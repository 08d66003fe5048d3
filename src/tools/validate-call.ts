/**
 * Turns what the model asked for into a call agentrt can run, or into a
 * structured error for the model. Never throws for bad model output.
 * @module
 */
import { ToolError } from "../errors.js";
import type { AgentTool } from "./define-tool.js";
import type { ToolRegistry } from "./registry.js";

/** A tool call as the model emitted it; `args` is a string when the model's JSON did not parse. */
export interface RawToolCall {
  id: string;
  name: string;
  args: unknown;
}

/** Either a runnable call or the error to return to the model. */
export type ValidatedCall =
  | { ok: true; tool: AgentTool; args: Record<string, unknown> }
  | { ok: false; error: ToolError };

function parseArgs(call: RawToolCall): { ok: true; value: unknown } | { ok: false; error: ToolError } {
  if (typeof call.args !== "string") return { ok: true, value: call.args ?? {} };
  try {
    return { ok: true, value: JSON.parse(call.args) as unknown };
  } catch (cause) {
    return {
      ok: false,
      error: new ToolError("TOOL_ARGS_INVALID", `arguments of ${call.name} are not valid JSON`, {
        cause, details: { tool: call.name, raw: call.args.slice(0, 500) },
      }),
    };
  }
}

/** Checks that the tool exists, the arguments are JSON and they satisfy the tool's schema. */
export function validateToolCall(registry: ToolRegistry, call: RawToolCall): ValidatedCall {
  const tool = registry.get(call.name);
  if (!tool) {
    return {
      ok: false,
      error: new ToolError("TOOL_UNKNOWN", `unknown tool "${call.name}"; available: ${registry.names().join(", ")}`, {
        details: { tool: call.name },
      }),
    };
  }
  const parsed = parseArgs(call);
  if (!parsed.ok) return parsed;
  const result = tool.schema.safeParse(parsed.value);
  if (!result.success) {
    const issues = result.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
    return {
      ok: false,
      error: new ToolError("TOOL_ARGS_INVALID", `invalid arguments for ${call.name}: ${issues.join("; ")}`, {
        details: { tool: call.name, issues },
      }),
    };
  }
  return { ok: true, tool, args: result.data as Record<string, unknown> };
}
