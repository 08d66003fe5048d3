/**
 * The LangGraph baseline of the runs bench: createReactAgent + the official SqliteSaver running the city_weather
 * request (two scripted model turns, three get_weather calls), so agentrt's durable run has a like-for-like reference.
 */
import { ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { SqliteSaver as OfficialSqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { z } from "zod";
import { weatherFor, weatherSystem } from "../graphs/sim/weather.js";
import { openDatabase } from "../src/db/index.js";
import { ScriptedChatModel, callSim } from "../src/testing/index.js";

const MESSAGE = "Weather for Beijing, Shanghai and Shenzhen";
const CITIES = ["Beijing", "Shanghai", "Shenzhen"];

/** How the baseline is set up. */
export interface BaselineOptions {
  /** Call the simulated weather service city_weather calls (one counted write per call), else return a constant. */
  sameTool: boolean;
  /** "v2": one task (one checkpointed branch) per tool call, as agentrt runs them; "v1": a turn's calls in one task. */
  version: "v1" | "v2";
  /** LangGraph's checkpoint durability: "sync" awaits each checkpoint write before the next step, as agentrt does. */
  durability: "sync" | "async";
}

/** One baseline agent on its own file: `run(i)` runs the request on thread `t<i>`. */
export function langgraphBaseline(file: string, options: BaselineOptions): { run(i: number): Promise<void>; close(): void } {
  const simDb = options.sameTool ? openDatabase(file) : undefined;
  const never = new AbortController();
  const getWeather = tool(async ({ city }: { city: string }, config) => {
    if (simDb === undefined) return JSON.stringify({ city, tempC: 21, condition: "sunny" });
    const ctx = { db: simDb, idempotencyKey: config.toolCall?.id ?? city, signal: never.signal, setExternalOperationId: () => undefined };
    return JSON.stringify(await callSim(ctx, { system: weatherSystem, tool: "get_weather", sideEffect: false }, () => weatherFor(city)));
  }, {
    name: "get_weather", description: "Current weather for a city", schema: z.object({ city: z.string() }),
  });
  const model = new ScriptedChatModel({
    script: ({ messages }) => messages.some((m) => m instanceof ToolMessage)
      ? { content: "Sunny in all three cities." }
      : { toolCalls: CITIES.map((city) => ({ name: "get_weather", args: { city } })) },
  });
  const checkpointer = OfficialSqliteSaver.fromConnString(file);
  const agent = createReactAgent({ llm: model, tools: [getWeather], checkpointSaver: checkpointer, version: options.version });
  return {
    run: async (i) => {
      await agent.invoke({ messages: [{ role: "user", content: MESSAGE }] }, { configurable: { thread_id: `t${i}` }, durability: options.durability });
    },
    close: () => {
      simDb?.close();
      checkpointer.db.close();
    },
  };
}
