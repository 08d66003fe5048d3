// Pins the public API: every name each entry point of package.json's exports map gives a user, values and types,
// against the committed list in exports.snapshot.txt. A refactor that drops, adds or turns a type into a value shows
// up as a diff of that file, to be made on purpose (`npx vitest run test/package/exports.test.ts -u`).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** The source file behind each subpath of the exports map (its `types` entry, dist/… → the .ts it is built from). */
function entryPoints(): Map<string, string> {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { exports: Record<string, string | { types?: string }> };
  const entries = new Map<string, string>();
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    if (typeof target === "string" || target.types === undefined) continue;
    entries.set(subpath, join(root, target.types.replace(/^\.\/dist\//, "").replace(/\.d\.ts$/, ".ts")));
  }
  return entries;
}

/** Each entry point's exported symbols, aliases resolved to what they name. */
function exportedSymbols(): { subpath: string; name: string; target: ts.Symbol; checker: ts.TypeChecker }[] {
  const entries = entryPoints();
  const config = ts.getParsedCommandLineOfConfigFile(join(root, "tsconfig.json"), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
  if (config === undefined) throw new Error("tsconfig.json could not be read");
  const program = ts.createProgram([...entries.values()], { ...config.options, noEmit: true });
  const checker = program.getTypeChecker();
  const symbols: { subpath: string; name: string; target: ts.Symbol; checker: ts.TypeChecker }[] = [];
  for (const [subpath, file] of entries) {
    const source = program.getSourceFile(file);
    const module = source === undefined ? undefined : checker.getSymbolAtLocation(source);
    if (module === undefined) throw new Error(`${subpath}: ${file} is not a module`);
    for (const symbol of checker.getExportsOfModule(module)) {
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      symbols.push({ subpath, name: symbol.name, target, checker });
    }
  }
  return symbols;
}

/** `subpath<TAB>name<TAB>value|type`, one line per exported name, sorted. */
function exportedNames(symbols: ReturnType<typeof exportedSymbols>): string {
  const lines = symbols.map(({ subpath, name, target }) => `${subpath}\t${name}\t${target.flags & ts.SymbolFlags.Value ? "value" : "type"}`);
  return `${lines.sort().join("\n")}\n`;
}

describe("the public API", () => {
  // One type-checker pass over the sources (seconds), shared by the tests.
  const symbols = exportedSymbols();
  const names = exportedNames(symbols);

  it("exports exactly the names in exports.snapshot.txt from each entry point", async () => {
    await expect(names).toMatchFileSnapshot("./exports.snapshot.txt");
  });

  it("lists a value at runtime for every name the snapshot calls a value", async () => {
    for (const [subpath, file] of entryPoints()) {
      const values = names.split("\n").filter((line) => line.startsWith(`${subpath}\t`) && line.endsWith("\tvalue")).map((line) => line.split("\t")[1]);
      const module = (await import(file)) as Record<string, unknown>;
      expect(Object.keys(module).sort(), subpath).toEqual([...values].sort());
    }
  });

  it("documents every exported name with TSDoc", () => {
    const undocumented = symbols
      .filter(({ target, checker }) => ts.displayPartsToString(target.getDocumentationComment(checker)).trim() === "")
      .map(({ subpath, name }) => `${subpath} ${name}`);
    expect(undocumented).toEqual([]);
  });
});
