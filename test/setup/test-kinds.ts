/**
 * Which test files share a worker without isolation. Re-importing LangChain and LangGraph in a fresh worker costs
 * each file seconds of CPU, most of the suite's time; files that only call code in this process pay it once per
 * worker instead. A file is "integration" (a fresh, isolated worker) when its name says so (`*.int.test.ts`,
 * `*.postgres.test.ts`) or its source reaches outside the process: child processes, servers, PostgreSQL, a browser.
 * @module
 */
import { readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";

// What marks a file as reaching outside the process (or sharing a server for the whole file).
const OUTSIDE = /postgres|useTestSchema|spawn|fork\(|execFile|startTestServer|testServerForFile|startServer|agentrtProcess|chromium|playwright|child_process|workerProcess/;

/** Test files under `root/test`, relative to `root`, split into those that may share a worker and the rest. */
export function testKinds(root: string): { unit: string[]; integration: string[] } {
  const unit: string[] = [];
  const integration: string[] = [];
  for (const file of readdirSync(join(root, "test"), { recursive: true, encoding: "utf8" })) {
    if (!file.endsWith(".test.ts")) continue;
    const path = relative(root, join(root, "test", file)).replaceAll("\\", "/");
    const named = path.endsWith(".int.test.ts") || path.includes("postgres");
    (named || OUTSIDE.test(readFileSync(join(root, path), "utf8")) ? integration : unit).push(path);
  }
  return { unit: unit.sort(), integration: integration.sort() };
}
