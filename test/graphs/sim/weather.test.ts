import { afterEach, beforeEach, expect, it } from "vitest";
import { getWeather, weatherFor } from "../../../graphs/sim/index.js";
import { simHarness, type SimHarness } from "./sim-context.js";

let h: SimHarness;
beforeEach(() => {
  h = simHarness();
});
afterEach(() => h.close());

it("answers the three scenario cities deterministically, in English or Chinese", async () => {
  const cities = await Promise.all(["Beijing", "Shanghai", "Shenzhen"].map((city) => h.call(getWeather, { city })));
  expect(cities).toEqual([
    { city: "Beijing", condition: "sunny", temperatureC: 24, humidityPercent: 31, windKph: 14 },
    { city: "Shanghai", condition: "light rain", temperatureC: 21, humidityPercent: 83, windKph: 18 },
    { city: "Shenzhen", condition: "thunderstorms", temperatureC: 29, humidityPercent: 88, windKph: 22 },
  ]);
  expect(weatherFor("上海")).toEqual(weatherFor("shanghai"));
});

it("derives the same reading for any other city on every call", () => {
  const a = weatherFor("Reykjavik");
  expect(weatherFor(" reykjavik ")).toEqual({ ...a, city: "reykjavik" });
  expect(a.temperatureC).toBeGreaterThanOrEqual(5);
  expect(a.temperatureC).toBeLessThanOrEqual(30);
});
