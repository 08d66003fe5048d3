/**
 * Prints the ten slowest test files after a run (wall time of each file's tests and hooks, and of its imports), so
 * the suite's time has names on it.
 * @module
 */
import type { Reporter, TestModule } from "vitest/node";

/** A vitest reporter that lists the slowest files at the end of a run. */
export default class SlowestFiles implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const rows = modules.map((module) => {
      const diagnostic = module.diagnostic();
      return { file: module.relativeModuleId, tests: diagnostic.duration, imports: diagnostic.collectDuration, project: module.project.name };
    }).sort((a, b) => b.tests + b.imports - (a.tests + a.imports)).slice(0, 10);
    if (rows.length === 0) return;
    const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`.padStart(8);
    const lines = rows.map((row) => `${seconds(row.tests + row.imports)} ${seconds(row.imports)} import  ${row.project.padEnd(11)} ${row.file}`);
    process.stdout.write(`\nSlowest test files (total, of which import):\n${lines.join("\n")}\n`);
  }
}
