// city_weather through the real runtime: one model turn asks for every city and the calls overlap in time.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { citiesIn } from "../../graphs/city_weather.js";
import { openScenarioRuntime, withSimEnv, type ScenarioRuntime } from "./scenario-runtime.js";

let rt: ScenarioRuntime;
beforeEach(() => {
  rt = openScenarioRuntime();
});
afterEach(() => rt.close());

const submit = (message: string) => rt.runtime.submit({ graph: "city_weather", message, user: "alice" });

async function toolSpans(runId: string) {
  return (await rt.runtime.trace.spans(runId)).filter((s) => s.kind === "tool_call" && s.tool === "get_weather");
}

describe("city_weather", () => {
  it("asks for three cities in one turn and runs the calls in parallel", async () => {
    const run = await withSimEnv({ AGENTRT_SIM_LATENCY_MS: "300" }, () => submit("Weather for Beijing, Shanghai and Shenzhen"));
    expect(run.status).toBe("SUCCEEDED");
    expect(run.result).toMatch(/Beijing: sunny, 24°C[\s\S]*Shanghai: light rain[\s\S]*Shenzhen: thunderstorms/);
    expect(run.usage.model_calls).toBe(2);
    const spans = await toolSpans(run.run_id);
    expect(spans).toHaveLength(3);
    // Every call started before any of them ended: all three were in flight at once.
    const latestStart = Math.max(...spans.map((s) => s.startMs));
    const earliestEnd = Math.min(...spans.map((s) => s.endMs ?? Number.POSITIVE_INFINITY));
    expect(latestStart).toBeLessThan(earliestEnd);
    expect((await rt.world()).calls).toEqual({ get_weather: 3 });
  });

  it("works for any list of known cities, in the order given, Chinese names included", async () => {
    expect(citiesIn("Tokyo, new york and London?")).toEqual(["Tokyo", "New York", "London"]);
    expect(citiesIn("北京、上海和深圳的天气")).toEqual(["Beijing", "Shanghai", "Shenzhen"]);
    const run = await submit("How is the weather in Hangzhou and Chengdu today?");
    expect(run.status).toBe("SUCCEEDED");
    expect(run.result).toMatch(/Hangzhou: overcast[\s\S]*Chengdu: fog/);
    expect(await toolSpans(run.run_id)).toHaveLength(2);
  });

  it("asks again only for the city whose call failed transiently", async () => {
    const run = await withSimEnv({ AGENTRT_SIM_FAULTS: "get_weather:1" }, () => submit("Weather for Beijing, Shanghai and Shenzhen"));
    expect(run.status).toBe("SUCCEEDED");
    expect(run.result).not.toMatch(/not available/);
    expect(run.usage.model_calls).toBe(3);
    expect((await rt.world())).toMatchObject({ calls: { get_weather: 3 }, failures: { get_weather: 1 } });
  });

  it("reports a city whose calls keep failing and the others' weather", async () => {
    const run = await withSimEnv({ AGENTRT_SIM_FAULTS: "get_weather:5" }, () => submit("Weather for Beijing and Shanghai"));
    expect(run.status).toBe("SUCCEEDED");
    expect(run.result).toMatch(/not available, get_weather failed/);
    expect((await rt.world()).failures).toEqual({ get_weather: 5 });
  });

  it("asks which cities when none is named", async () => {
    const run = await submit("What's the weather like?");
    expect(run.result).toMatch(/^Which cities\?/);
    expect((await rt.world()).calls).toEqual({});
  });
});
