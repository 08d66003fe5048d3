/**
 * A parameterized statement with its values written in as quoted literals, so it can travel in one simple-query
 * send with BEGIN or COMMIT (one round trip instead of two). Each value becomes the text pg would have sent for it,
 * quoted and untyped, so the server resolves its type from context just as it does an untyped parameter.
 * @module
 */
import { createRequire } from "node:module";
import pg from "pg";

// pg's own conversion of a value to its wire text (arrays to array literals, dates, objects as JSON).
const { prepareValue } = createRequire(import.meta.url)("pg/lib/utils.js") as { prepareValue: (value: unknown) => string | Buffer | null };

/** A statement as a module sends it: text, or a config with text and values (and at most a prepared name). */
export type PgStatement = string | { text: string; values?: unknown[]; name?: string };

/**
 * The statement with `$n` replaced by literals, and its other query options (row mode, type parsers, which pg applies
 * to every result of a multi-statement send); undefined when it cannot be (a missing value, dollar quoting).
 */
export function inlineParams(statement: PgStatement, values?: unknown[]): { text: string; options: Record<string, unknown> } | undefined {
  const { text, values: own, name: _name, ...options } = typeof statement === "string" ? { text: statement } : statement;
  void _name;
  const literals = (values ?? own ?? []).map(literal);
  let missing = false;
  // Quoted strings and identifiers are skipped whole: a `$1` inside one is not a parameter.
  const inlined = text.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"|\$(\d+)/g, (match, n: string | undefined) => {
    if (n === undefined) return match;
    const value = literals[Number(n) - 1];
    if (value === undefined) missing = true;
    return value ?? match;
  });
  // What the scan above does not understand is sent with parameters instead: dollar quoting, comments and E'' strings
  // (each could hide or end a quoted run), and `$` inside an identifier (`col$1`).
  return missing || /\$\$|\$[A-Za-z_]\w*\$|--|\/\*|\b[eE]'|\w\$\d/.test(text) ? undefined : { text: inlined, options };
}

function literal(value: unknown): string {
  const prepared = prepareValue(value);
  if (prepared === null) return "NULL";
  // bytea's hex input form; a parameter's Buffer would have gone as the same bytes.
  if (Buffer.isBuffer(prepared)) return pg.escapeLiteral(`\\x${prepared.toString("hex")}`);
  return pg.escapeLiteral(prepared);
}
