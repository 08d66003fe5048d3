/**
 * Aggregates a V8 `.cpuprofile` (from `node --cpu-prof`) by self time: `tsx scripts/cpu-profile-top.ts <file> [rows]`
 * prints the top files (package name for node_modules, path under the repo otherwise) and the top functions; with a
* `--inclusive`: also the total (self + callees) time of the repo's own functions. With a
 * third argument, the call chains (4 callers up) ending in functions whose "name place" matches that regex.
 */
import { readFileSync } from "node:fs";

interface ProfileNode { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }
interface Profile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }

const [file, rowsArg, callersOf] = process.argv.slice(2).filter((a) => a !== "--inclusive");
const inclusive = process.argv.includes("--inclusive");
if (file === undefined) throw new Error("usage: cpu-profile-top.ts <file.cpuprofile> [rows] [function-regex: its callers]");
const rows = Number(rowsArg ?? 25);
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));

/** A short name for where a function lives: a package for node_modules, the path under the repo otherwise. */
function place(url: string): string {
  if (url === "") return "(native/vm)";
  const nm = url.lastIndexOf("node_modules/");
  if (nm >= 0) {
    const parts = url.slice(nm + 13).split("/");
    return parts[0]?.startsWith("@") ? `${parts[0]}/${parts[1]}` : (parts[0] ?? url);
  }
  const repo = url.match(/\/(src|checkpointers|graphs|bench)\/.*/);
  return repo ? repo[0].slice(1) : url.replace(/^file:\/\//, "");
}

const byPlace = new Map<string, number>();
const byFunction = new Map<string, number>();
let total = 0;
for (const [id, us] of selfUs) {
  const node = byId.get(id);
  if (node === undefined) continue;
  total += us;
  const where = place(node.callFrame.url);
  byPlace.set(where, (byPlace.get(where) ?? 0) + us);
  const name = `${node.callFrame.functionName || "(anonymous)"} ${where}:${node.callFrame.lineNumber + 1}`;
  byFunction.set(name, (byFunction.get(name) ?? 0) + us);
}
const show = (title: string, map: Map<string, number>) => {
  console.log(`${title} (self time, total ${(total / 1000).toFixed(0)} ms)`);
  for (const [name, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, rows)) {
    console.log(`  ${((100 * us) / total).toFixed(1).padStart(5)} %  ${(us / 1000).toFixed(0).padStart(6)} ms  ${name}`);
  }
};
show("by file / package", byPlace);
show("by function", byFunction);

if (callersOf !== undefined) {
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const label = (n: ProfileNode) => `${n.callFrame.functionName || "(anonymous)"} ${place(n.callFrame.url)}`;
  const re = new RegExp(callersOf);
  const chains = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (node === undefined || !re.test(label(node))) continue;
    const chain: string[] = [];
    for (let at = parent.get(id), i = 0; at !== undefined && i < 4; at = parent.get(at), i++) chain.push(label(byId.get(at) as ProfileNode));
    const key = `${label(node)} <- ${chain.join(" <- ")}`;
    chains.set(key, (chains.get(key) ?? 0) + us);
  }
  show(`callers of /${callersOf}/`, chains);
}

if (inclusive) {
  // Total time under each repo function, each sample counted once per function even through recursion.
  const children = new Map(profile.nodes.map((n) => [n.id, n.children ?? []]));
  const totals = new Map<string, number>();
  const walk = (id: number, open: Set<string>): number => {
    const node = byId.get(id) as ProfileNode;
    const where = place(node.callFrame.url);
    const label = `${node.callFrame.functionName || "(anonymous)"} ${where}`;
    const own = /^(src|checkpointers|graphs)\//.test(where) && !open.has(label);
    if (own) open.add(label);
    let sum = selfUs.get(id) ?? 0;
    for (const c of children.get(id) ?? []) sum += walk(c, open);
    if (own) {
      open.delete(label);
      totals.set(label, (totals.get(label) ?? 0) + sum);
    }
    return sum;
  };
  const root = profile.nodes[0];
  if (root !== undefined) walk(root.id, new Set());
  show("repo functions, inclusive", totals);
}
