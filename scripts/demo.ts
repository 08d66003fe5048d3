// The demo grows with the agent graphs; until then it shows the CLI works end to end.
import { main } from "../src/cli/main.js";

process.exitCode = await main(["info", "--db", process.env.AGENTRT_DB ?? "./agentrt.db"]);
