/**
 * Child process for the workspace race tests: flips `<dir>/<name>` between a
 * real directory and a symbolic link to `<outside>` as fast as it can, with
 * atomic renames, until it is killed.
 */
import { mkdirSync, renameSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";

const [dirArg, nameArg, outsideArg] = process.argv.slice(2);
if (dirArg === undefined || nameArg === undefined || outsideArg === undefined) throw new Error("usage: swap-dir-child <dir> <name> <outside>");
const dir = dirArg;
const name = nameArg;
const outside = outsideArg;
const real = join(dir, name);
const hold = join(dir, `${name}.hold`);
const link = join(dir, `${name}.link`);
let strays = 0;

/**
 * Renames `from` to `to`. A folder the workspace created at `to` in a gap is
 * moved aside and removed, so the workspace does not grow with every lap.
 */
function place(from: string, to: string): void {
  for (;;) {
    try {
      renameSync(from, to);
      return;
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code !== "EISDIR" && code !== "ENOTEMPTY" && code !== "EEXIST" && code !== "ENOTDIR") throw error;
      const stray = join(dir, `${name}.stray${strays++}`);
      renameSync(to, stray);
      try {
        rmSync(stray, { recursive: true, force: true });
      } catch {
        // Written into meanwhile: left for the test's cleanup.
      }
    }
  }
}

mkdirSync(real, { recursive: true });
symlinkSync(outside, link);
process.stdout.write("ready\n");
for (;;) {
  place(real, hold);
  place(link, real);
  place(real, link);
  place(hold, real);
}
