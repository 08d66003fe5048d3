#!/usr/bin/env node
import { checkoutSources, runSources } from "./checkout-sources.js";

// In an agentrt checkout, the compiled bin (`npx agentrt`) runs the sources the user edits; see checkout-sources.ts.
const sources = checkoutSources(import.meta.url);
if (sources !== undefined) {
  process.exitCode = await runSources(sources, process.argv.slice(2));
} else {
  const { main } = await import("./main.js");
  process.exitCode = await main(process.argv.slice(2));
}
