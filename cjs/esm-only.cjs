"use strict";
/**
 * What `require()` of an agentrt entry point gets: agentrt is an ES module package, so instead of node's
 * ERR_PACKAGE_PATH_NOT_EXPORTED a CommonJS caller is told how to load it.
 * @param {string} entry the specifier that was required, e.g. "agentrt/checkpointers"
 * @returns {never}
 */
module.exports = function esmOnly(entry) {
  const error = new Error(
    `${entry} is an ES module package and cannot be loaded with require(). From CommonJS use ` +
      `\`const { Runtime } = await import(${JSON.stringify(entry)})\` (inside an async function), or make your project ESM ` +
      `("type": "module" in package.json, or .mts/.mjs files).`,
  );
  error.code = "ERR_REQUIRE_ESM";
  throw error;
};
