// `node --import ./test/helpers/record-imports.mjs …`: appends the URL of every module the process loads to the
// file RECORD_IMPORTS_FILE names, one a line (a module loader hook; it runs in the loader's own thread).
import { register } from "node:module";

const hooks = `
import { appendFileSync } from "node:fs";
export async function load(url, context, next) {
  const file = process.env.RECORD_IMPORTS_FILE;
  if (file) appendFileSync(file, url + "\\n");
  return next(url, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);
