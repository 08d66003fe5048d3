/**
 * The elements of a checkpoint row's `vals` (schema v3) as the JSON texts they were written as. A put writes `vals` as
 * `[` + the values' JSON.stringify texts joined by `,` + `]`, so one pass that skips strings and counts brackets finds
 * every element's bounds; no JSON is parsed or rendered again (SQLite's `->` does both, per element).
 * @module
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/** The JSON text of each element of the array `vals`; an empty array for null. */
export function valsElements(vals: string | null): string[] {
  if (vals === null) return [];
  const elements: string[] = [];
  if (vals.charCodeAt(0) !== OPEN_BRACKET) return reRendered(vals);
  let depth = 0;
  let start = 1;
  for (let i = 1; i < vals.length; i++) {
    const code = vals.charCodeAt(i);
    if (code === QUOTE) {
      // A string: to its closing quote, stepping over escapes.
      for (i++; i < vals.length; i++) {
        const inner = vals.charCodeAt(i);
        if (inner === BACKSLASH) i++;
        else if (inner === QUOTE) break;
      }
    } else if (code === OPEN_BRACKET || code === OPEN_BRACE) {
      depth++;
    } else if (code === CLOSE_BRACKET || code === CLOSE_BRACE) {
      if (depth === 0) {
        if (i > start) elements.push(vals.slice(start, i));
        return elements;
      }
      depth--;
    } else if (code === COMMA && depth === 0) {
      elements.push(vals.slice(start, i));
      start = i + 1;
    }
  }
  // Unterminated: not as a put writes it.
  return reRendered(vals);
}

/** Any other JSON array (whitespace, a hand edit): parsed and each element written again. */
function reRendered(vals: string): string[] {
  const parsed: unknown = JSON.parse(vals);
  return Array.isArray(parsed) ? parsed.map((value) => JSON.stringify(value)) : [];
}
