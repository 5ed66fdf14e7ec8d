import { optionChecks } from '../options.js';

/** How the weather toolset is configured; every option has a default. */
export interface WeatherToolsetOptions {
  /** Open-Meteo geocoding API base URL (default "https://geocoding-api.open-meteo.com"). */
  geocodingUrl?: string;
  /** Open-Meteo forecast API base URL (default "https://api.open-meteo.com"). */
  forecastUrl?: string;
  /** Time each of the two upstream requests may take (default 10 000 ms). */
  requestTimeoutMs?: number;
  /** Largest upstream response read, in bytes (default 256 KiB). */
  maxResponseBytes?: number;
  /** Language of place and country names, an ISO 639-1 code (default "en"). */
  language?: string;
}

export interface WeatherSettings {
  geocodingUrl: string;
  forecastUrl: string;
  requestTimeoutMs: number;
  maxResponseBytes: number;
  language: string;
}

export const WEATHER_DEFAULTS = {
  geocodingUrl: 'https://geocoding-api.open-meteo.com',
  forecastUrl: 'https://api.open-meteo.com',
  requestTimeoutMs: 10_000,
  maxResponseBytes: 256 * 1024,
  language: 'en',
} as const;

const check = optionChecks('weather');

/** Throws a TypeError naming the bad option, so a config mistake fails at start-up. */
export function resolveWeatherOptions(options: WeatherToolsetOptions = {}): WeatherSettings {
  const language = check.matching('language', options.language ?? WEATHER_DEFAULTS.language, /^[a-z]{2}$/, 'a two-letter ISO 639-1 code');
  return {
    geocodingUrl: check.httpBaseUrl('geocodingUrl', options.geocodingUrl ?? WEATHER_DEFAULTS.geocodingUrl, noQuery),
    forecastUrl: check.httpBaseUrl('forecastUrl', options.forecastUrl ?? WEATHER_DEFAULTS.forecastUrl, noQuery),
    requestTimeoutMs: check.positiveInt('requestTimeoutMs', options.requestTimeoutMs ?? WEATHER_DEFAULTS.requestTimeoutMs),
    maxResponseBytes: check.positiveInt('maxResponseBytes', options.maxResponseBytes ?? WEATHER_DEFAULTS.maxResponseBytes),
    language,
  };
}

// Paths are appended to the base as text: after a query or fragment they would land inside it.
function noQuery(url: URL): string | undefined {
  return url.search || url.hash ? 'must not have a query or fragment' : undefined;
}
