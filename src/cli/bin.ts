#!/usr/bin/env node
import { checkoutSources, runSources } from "./checkout-sources.js";

// Output piped into a reader that stops early (`agentrt stats | head`) ends the command quietly, as other CLIs do.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code !== "EPIPE") throw error;
  process.exit(process.exitCode ?? 0);
});

// In an agentrt checkout, the compiled bin (`npx agentrt`) runs the sources the user edits (a read command runs a
// fresh dist/ itself); see checkout-sources.ts.
const sources = checkoutSources(import.meta.url, process.env, process.argv.slice(2));
if (sources !== undefined) {
  process.exitCode = await runSources(sources, process.argv.slice(2));
} else {
  const { main } = await import("./main.js");
  process.exitCode = await main(process.argv.slice(2));
}
