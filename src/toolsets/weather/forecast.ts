import { ToolError, type ToolContext } from '../../server/tool.js';
import type { WeatherSettings } from './options.js';
import { FORECAST, getJson } from './upstream.js';

export type Units = 'metric' | 'imperial';

interface CurrentWeather {
  /** Local time of the observation, ISO 8601 without offset (Open-Meteo's "iso8601" with timezone=auto). */
  time: string;
  timezone: string;
  temperature: number;
  apparent_temperature: number | null;
  humidity_percent: number | null;
  precipitation: number | null;
  wind_speed: number | null;
  weather_code: number | null;
  temperature_unit: string;
  precipitation_unit: string;
  wind_speed_unit: string;
}

const VARIABLES = ['temperature_2m', 'relative_humidity_2m', 'apparent_temperature', 'precipitation', 'weather_code', 'wind_speed_10m'];

// The API's own unit parameters and the symbols it reports for them (used when current_units is absent).
const UNIT_PARAMS: Record<Units, { params: Record<string, string>; temperature: string; precipitation: string; wind: string }> = {
  metric: { params: {}, temperature: '°C', precipitation: 'mm', wind: 'km/h' },
  imperial: {
    params: { temperature_unit: 'fahrenheit', wind_speed_unit: 'mph', precipitation_unit: 'inch' },
    temperature: '°F',
    precipitation: 'inch',
    wind: 'mp/h',
  },
};

/** Asks the forecast API (`/v1/forecast`) for current conditions at a point. */
export async function currentWeather(latitude: number, longitude: number, units: Units, settings: WeatherSettings, ctx: ToolContext): Promise<CurrentWeather> {
  const url = new URL(`${settings.forecastUrl}/v1/forecast`);
  url.searchParams.set('latitude', String(latitude));
  url.searchParams.set('longitude', String(longitude));
  url.searchParams.set('current', VARIABLES.join(','));
  url.searchParams.set('timezone', 'auto');
  const unit = UNIT_PARAMS[units];
  for (const [key, value] of Object.entries(unit.params)) url.searchParams.set(key, value);

  const data = await getJson(FORECAST, url, settings, ctx);
  const current = data.current;
  if (typeof current !== 'object' || current === null) throw shapeError('there is no "current" object');
  const c = current as Record<string, unknown>;
  if (typeof c.time !== 'string') throw shapeError('"current.time" is missing');
  const temperature = num(c.temperature_2m);
  if (temperature === null) throw shapeError('"current.temperature_2m" is not a number');
  const code = num(c.weather_code);
  const reported = (typeof data.current_units === 'object' && data.current_units !== null ? data.current_units : {}) as Record<string, unknown>;
  return {
    time: c.time,
    timezone: typeof data.timezone === 'string' ? data.timezone : 'GMT',
    temperature,
    apparent_temperature: num(c.apparent_temperature),
    humidity_percent: num(c.relative_humidity_2m),
    precipitation: num(c.precipitation),
    wind_speed: num(c.wind_speed_10m),
    weather_code: code !== null && Number.isInteger(code) ? code : null,
    temperature_unit: unitText(reported.temperature_2m, unit.temperature),
    precipitation_unit: unitText(reported.precipitation, unit.precipitation),
    wind_speed_unit: unitText(reported.wind_speed_10m, unit.wind),
  };
}

// Open-Meteo reports null where a model has no value for a variable at that place.
function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function unitText(value: unknown, fallback: string): string {
  return typeof value === 'string' && value.length > 0 && value.length <= 16 ? value : fallback;
}

function shapeError(why: string): ToolError {
  return new ToolError(`The ${FORECAST.label} answered with an unexpected shape (${why}). This is an upstream fault; try again later.`);
}
