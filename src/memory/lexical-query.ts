/**
 * The store's `query`: a lexical match, not embeddings. Each item keeps a
 * lower-cased search text; a query scores by the share of its terms found.
 * @module
 */
import { getTextAtPath } from "@langchain/langgraph-checkpoint";
import type { SqlCondition } from "./filter-sql.js";

/** The text a query is matched against: the fields named in `index`, the whole value by default, none for `false`. */
export function searchText(value: Record<string, unknown>, index: false | string[] | undefined): string | null {
  if (index === false) return null;
  const texts = index === undefined ? [JSON.stringify(value)] : index.flatMap((path) => getTextAtPath(value, path));
  return texts.join("\n").toLowerCase();
}

/** Query terms: lower-cased words; Han, kana and Hangul characters count one by one (no spaces between words). */
export function queryTerms(query: string): string[] {
  const terms = new Set<string>();
  for (const word of query.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (word === "") continue;
    const cjk = word.match(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu);
    if (cjk !== null) cjk.forEach((ch) => terms.add(ch));
    const rest = word.replace(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu, " ").trim();
    for (const part of rest.split(" ")) if (part !== "") terms.add(part);
  }
  // Each term is a term of the score expression, which SQLite caps at depth 1000: rank by the first ones.
  return [...terms].slice(0, MAX_QUERY_TERMS);
}

/** Distinct query terms a search ranks by (a longer query's later terms are ignored). */
export const MAX_QUERY_TERMS = 64;

/** SQL for the score in [0, 1]: the share of `terms` that occur in `search_text`. */
export function scoreExpression(terms: readonly string[]): SqlCondition {
  if (terms.length === 0) return { sql: "NULL", params: [] };
  const hits = terms.map(() => "(COALESCE(instr(search_text, ?), 0) > 0)").join(" + ");
  return { sql: `CAST((${hits}) AS REAL) / ${terms.length}`, params: [...terms] };
}
