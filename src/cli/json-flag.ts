/**
 * A flag whose value is JSON (`--input`, `--configurable`, `--edit-args`): parsed and held to the rules an HTTP body
 * is held to (depth, storable text), or exit 2 naming the flag.
 * @module
 */
import { MAX_JSON_DEPTH, nestedDeeperThan, unstorableInJson } from "../db/index.js";
import { UserInputError } from "../errors.js";

/** The parsed value of a JSON flag; BAD_INPUT naming `flag` when it is not JSON, nests too deep or holds unstorable text. */
export function parseJsonFlag(text: string, flag: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UserInputError("BAD_INPUT", `${flag} is not valid JSON (${(error as Error).message})`);
  }
  // LangGraph's serializers recurse: a value nested thousands deep would overflow the stack after the run is stored.
  if (nestedDeeperThan(value)) throw new UserInputError("BAD_INPUT", `${flag} nests arrays or objects deeper than ${MAX_JSON_DEPTH} levels`);
  const unstorable = unstorableInJson(value);
  if (unstorable !== undefined) throw new UserInputError("BAD_INPUT", `${flag} holds ${unstorable}, which agentrt cannot store`);
  return value;
}
