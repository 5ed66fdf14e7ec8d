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

/** Throws a TypeError naming the bad option, so a config mistake fails at start-up. */
export function resolveWeatherOptions(options: WeatherToolsetOptions = {}): WeatherSettings {
  const language = options.language ?? WEATHER_DEFAULTS.language;
  if (!/^[a-z]{2}$/.test(language)) throw new TypeError(`weather toolset: "language" must be a two-letter ISO 639-1 code, got ${JSON.stringify(language)}`);
  return {
    geocodingUrl: baseUrl('geocodingUrl', options.geocodingUrl ?? WEATHER_DEFAULTS.geocodingUrl),
    forecastUrl: baseUrl('forecastUrl', options.forecastUrl ?? WEATHER_DEFAULTS.forecastUrl),
    requestTimeoutMs: positiveInt('requestTimeoutMs', options.requestTimeoutMs ?? WEATHER_DEFAULTS.requestTimeoutMs),
    maxResponseBytes: positiveInt('maxResponseBytes', options.maxResponseBytes ?? WEATHER_DEFAULTS.maxResponseBytes),
    language,
  };
}

function baseUrl(name: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(`weather toolset: "${name}" is not a URL: ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TypeError(`weather toolset: "${name}" must be an http(s) URL`);
  if (url.search || url.hash) throw new TypeError(`weather toolset: "${name}" must not have a query or fragment`);
  // Paths are appended as text ("/v1/search"), so a proxy prefix survives; the trailing slash goes.
  return url.href.replace(/\/+$/, '');
}

function positiveInt(name: string, value: number): number {
  if (!Number.isInteger(value) || value <= 0) throw new TypeError(`weather toolset: "${name}" must be a positive integer`);
  return value;
}
