/**
 * A custom graph with `defineDag`: say what each node needs, and each starts as soon as that is done.
 * `weather` and `hotels` need only the city, so they run together; `plan` waits for both.
 * Run: npx tsx examples/dag.ts
 * @module
 */
import { defineDag } from "agentrt";
import { SqliteSaver } from "agentrt/checkpointers";

interface Trip {
  city: string;
  weather?: string;
  hotels?: string[];
  plan?: string;
}

const log = (line: string) => console.log(line);
const lookUp = async <T>(node: string, value: T): Promise<T> => {
  log(`${node} started`);
  await new Promise((resolve) => setTimeout(resolve, 300)); // a slow API
  log(`${node} done`);
  return value;
};

const trip = defineDag<Trip>({ name: "trip", state: { city: {}, weather: {}, hotels: {}, plan: {} } })
  .node("weather", async ({ city }) => ({ weather: await lookUp("weather", `sunny in ${city}`) }))
  .node("hotels", async ({ city }) => ({ hotels: await lookUp("hotels", [`${city} Grand`, `${city} Inn`]) }))
  .node("plan", ({ weather, hotels }) => ({ plan: `${weather ?? "?"}; stay at ${hotels?.[0] ?? "?"}` }), { after: ["weather", "hotels"] });

console.log(trip.drawMermaid()); // what Studio and `agentrt graph` draw once the graph is in langgraph.json

// Each finished node is saved: a run killed midway resumes with only the unfinished nodes.
const checkpointer = SqliteSaver.fromConnString(process.env.AGENTRT_DB ?? "./agentrt.db");
const graph = trip.compile({ checkpointer });
const out = await graph.invoke({ city: "Lisbon" }, { configurable: { thread_id: `trip-${Date.now()}` } });
log(`plan: ${out.plan ?? ""}`);
