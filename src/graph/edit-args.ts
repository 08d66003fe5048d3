/**
 * Checks edited arguments against the JSON Schema a pending action carries, so an edit the tool would refuse is
 * refused before the run resumes. The tool's own zod schema checks them again inside the branch (JSON Schema
 * cannot say everything zod can: refinements, transforms).
 * @module
 */
import { z } from "zod";

/** Why `args` do not fit `schema` (one line), or undefined when they do or there is no schema to check. */
export function editArgsProblem(schema: Record<string, unknown> | undefined, args: Record<string, unknown>): string | undefined {
  if (schema === undefined) return undefined;
  let parser: z.ZodType;
  try {
    parser = z.fromJSONSchema(schema);
  } catch {
    return undefined; // A schema zod cannot rebuild is left to the tool's own check inside the branch.
  }
  const parsed = parser.safeParse(args);
  if (parsed.success) return undefined;
  return parsed.error.issues.map((i) => `${i.path.join(".") || "arguments"}: ${i.message}`).join("; ");
}

/** The JSON Schema of a tool's zod arguments, or undefined when zod cannot express it. */
export function argsJsonSchema(schema: z.ZodType): Record<string, unknown> | undefined {
  try {
    const json = z.toJSONSchema(schema, { unrepresentable: "any", io: "input" }) as Record<string, unknown>;
    delete json.$schema;
    return json;
  } catch {
    return undefined;
  }
}
