"use strict";
// agentrt is ESM only: see esm-only.cjs.
require("./esm-only.cjs")("agentrt/checkpointers");
