import { defineTool, type Tool, type ToolResult } from '../../server/tool.js';
import { currentWeather, type Units } from './forecast.js';
import { geocode } from './geocode.js';
import type { WeatherSettings } from './options.js';
import { describeWeatherCode } from './wmo-codes.js';

const nullableNumber = { type: ['number', 'null'] };

const WEATHER_OUTPUT_SCHEMA = {
  type: 'object',
  properties: {
    location: { type: 'string', description: 'Name of the place found.' },
    region: { type: ['string', 'null'], description: 'State, province or region, when known.' },
    country: { type: 'string' },
    country_code: { type: 'string', description: 'ISO 3166-1 alpha-2 code, e.g. "DE".' },
    latitude: { type: 'number', minimum: -90, maximum: 90 },
    longitude: { type: 'number', minimum: -180, maximum: 180 },
    timezone: { type: 'string', description: 'IANA time zone of the place, e.g. "Europe/Berlin".' },
    time: { type: 'string', description: 'Local time of the observation (ISO 8601, in timezone).' },
    units: { type: 'string', enum: ['metric', 'imperial'] },
    conditions: { type: 'string', description: 'Sky and precipitation, from the WMO weather code.' },
    weather_code: { type: ['integer', 'null'], description: 'WMO weather interpretation code.' },
    temperature: { type: 'number' },
    apparent_temperature: { ...nullableNumber, description: 'Feels-like temperature.' },
    temperature_unit: { type: 'string', description: '"°C" or "°F".' },
    humidity_percent: { ...nullableNumber, description: 'Relative humidity at 2 m, in %.' },
    precipitation: { ...nullableNumber, description: 'Precipitation in the last interval.' },
    precipitation_unit: { type: 'string' },
    wind_speed: { ...nullableNumber, description: 'Wind speed at 10 m.' },
    wind_speed_unit: { type: 'string' },
  },
  required: [
    'location',
    'region',
    'country',
    'country_code',
    'latitude',
    'longitude',
    'timezone',
    'time',
    'units',
    'conditions',
    'weather_code',
    'temperature',
    'apparent_temperature',
    'temperature_unit',
    'humidity_percent',
    'precipitation',
    'precipitation_unit',
    'wind_speed',
    'wind_speed_unit',
  ],
  additionalProperties: false,
};

export function getWeatherTool(settings: WeatherSettings): Tool {
  return defineTool({
    name: 'get_weather',
    title: 'Current weather',
    description:
      "Gets the current weather for a place by name: conditions, temperature, feels-like temperature, humidity, precipitation and wind, with the place's coordinates and local time, from Open-Meteo. " +
      'Use it when the user asks about the weather now somewhere; it gives no forecast for later days. ' +
      'Side effects: none (read-only; it sends the place name and its coordinates to Open-Meteo).',
    inputSchema: {
      type: 'object',
      properties: {
        location: {
          type: 'string',
          minLength: 2,
          maxLength: 200,
          pattern: '\\S',
          description:
            'A city or place name, optionally followed by region or country after commas: "Berlin", "Paris, France", "Springfield, Illinois". Postal codes also work.',
        },
        units: {
          type: 'string',
          enum: ['metric', 'imperial'],
          default: 'metric',
          description: 'metric: °C, km/h, mm; imperial: °F, mph, inch. Default: metric.',
        },
      },
      required: ['location'],
      additionalProperties: false,
    },
    outputSchema: WEATHER_OUTPUT_SCHEMA,
    annotations: { title: 'Current weather', readOnlyHint: true, openWorldHint: true },
    handler: async (args, ctx): Promise<ToolResult> => {
      const location = String(args.location);
      const units: Units = args.units === 'imperial' ? 'imperial' : 'metric';
      const place = await geocode(location, settings, ctx);
      const now = await currentWeather(place.latitude, place.longitude, units, settings, ctx);
      const value = {
        location: place.name,
        region: place.region,
        country: place.country,
        country_code: place.country_code,
        latitude: place.latitude,
        longitude: place.longitude,
        timezone: now.timezone,
        time: now.time,
        units,
        conditions: describeWeatherCode(now.weather_code),
        weather_code: now.weather_code,
        temperature: now.temperature,
        apparent_temperature: now.apparent_temperature,
        temperature_unit: now.temperature_unit,
        humidity_percent: now.humidity_percent,
        precipitation: now.precipitation,
        precipitation_unit: now.precipitation_unit,
        wind_speed: now.wind_speed,
        wind_speed_unit: now.wind_speed_unit,
      };
      // A readable sentence for the model, then the JSON (tools.mdx: structured content SHOULD also be serialized in a text block).
      return {
        content: [
          { type: 'text', text: describe(value) },
          { type: 'text', text: JSON.stringify(value) },
        ],
        structuredContent: value,
      };
    },
  });
}

function describe(v: {
  location: string;
  region: string | null;
  country: string;
  latitude: number;
  longitude: number;
  time: string;
  timezone: string;
  conditions: string;
  temperature: number;
  apparent_temperature: number | null;
  temperature_unit: string;
  humidity_percent: number | null;
  precipitation: number | null;
  precipitation_unit: string;
  wind_speed: number | null;
  wind_speed_unit: string;
}): string {
  const where = [v.location, v.region !== v.location ? v.region : null, v.country].filter(Boolean).join(', ');
  const parts = [`${v.conditions}, ${v.temperature} ${v.temperature_unit}`];
  if (v.apparent_temperature !== null) parts[0] += ` (feels like ${v.apparent_temperature} ${v.temperature_unit})`;
  if (v.humidity_percent !== null) parts.push(`humidity ${v.humidity_percent} %`);
  if (v.precipitation !== null) parts.push(`precipitation ${v.precipitation} ${v.precipitation_unit}`);
  if (v.wind_speed !== null) parts.push(`wind ${v.wind_speed} ${v.wind_speed_unit}`);
  return `Weather in ${where} (${v.latitude.toFixed(2)}, ${v.longitude.toFixed(2)}) at ${v.time} local time (${v.timezone}): ${parts.join(', ')}.`;
}
