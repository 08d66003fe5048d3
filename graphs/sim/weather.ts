/**
 * Simulated weather service: fixed readings for well-known cities and a
 * deterministic reading derived from the name for any other city.
 * @module
 */
import { defineTool } from "agentrt";
import { callSim, type SimSystem } from "agentrt/testing";
import { z } from "zod";

/** A weather reading as get_weather returns it. */
export interface WeatherReading {
  city: string;
  condition: string;
  temperatureC: number;
  humidityPercent: number;
  windKph: number;
}

/** The weather service keeps no mutable state. */
export const weatherSystem: SimSystem = { name: "weather", seed: {} };

const reading = (city: string, condition: string, temperatureC: number, humidityPercent: number, windKph: number): WeatherReading => ({
  city, condition, temperatureC, humidityPercent, windKph,
});

/** Readings of the cities the scenarios ask about, by lower-case name. */
export const KNOWN_WEATHER: Readonly<Record<string, WeatherReading>> = {
  beijing: reading("Beijing", "sunny", 24, 31, 14),
  shanghai: reading("Shanghai", "light rain", 21, 83, 18),
  shenzhen: reading("Shenzhen", "thunderstorms", 29, 88, 22),
  guangzhou: reading("Guangzhou", "cloudy", 28, 79, 12),
  hangzhou: reading("Hangzhou", "overcast", 22, 74, 9),
  chengdu: reading("Chengdu", "fog", 19, 90, 5),
  london: reading("London", "drizzle", 13, 81, 20),
  "new york": reading("New York", "partly cloudy", 18, 55, 16),
  tokyo: reading("Tokyo", "clear", 20, 60, 11),
};

const ALIASES: Readonly<Record<string, string>> = {
  北京: "beijing", 上海: "shanghai", 深圳: "shenzhen", 广州: "guangzhou", 杭州: "hangzhou", 成都: "chengdu",
  东京: "tokyo", 伦敦: "london", 纽约: "new york", nyc: "new york",
};

const CONDITIONS = ["sunny", "cloudy", "overcast", "light rain", "clear", "windy"] as const;

/** The reading for any city name, identical on every call. */
export function weatherFor(city: string): WeatherReading {
  const cleaned = city.trim();
  const key = ALIASES[cleaned] ?? ALIASES[cleaned.toLowerCase()] ?? cleaned.toLowerCase();
  const known = KNOWN_WEATHER[key];
  if (known !== undefined) return known;
  let hash = 0;
  for (const char of key) hash = (hash * 31 + (char.codePointAt(0) ?? 0)) >>> 0;
  return reading(cleaned, CONDITIONS[hash % CONDITIONS.length] ?? "clear", 5 + (hash % 26), 30 + (hash % 60), 3 + (hash % 25));
}

/** Current weather for one city. */
export const getWeather = defineTool({
  name: "get_weather",
  description:
    "Current weather for one city: condition, temperature in °C, humidity and wind. Call it once per city; calls for different cities can run in parallel.",
  schema: z.object({ city: z.string().min(1).max(100).describe('City name, e.g. "Beijing" or "上海"') }),
  risk: "read",
  tags: ["weather"],
  execute: (args, ctx) =>
    callSim(ctx, { system: weatherSystem, tool: "get_weather", sideEffect: false }, () => weatherFor(args.city)),
});
