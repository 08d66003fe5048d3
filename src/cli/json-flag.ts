/**
 * A flag whose value is JSON (`--input`, `--configurable`, `--edit-args`): parsed, or exit 2 naming the flag.
 * @module
 */
import { UserInputError } from "../errors.js";

/** The parsed value of a JSON flag; BAD_INPUT naming `flag` when it is not JSON. */
export function parseJsonFlag(text: string, flag: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UserInputError("BAD_INPUT", `${flag} is not valid JSON (${(error as Error).message})`);
  }
}
