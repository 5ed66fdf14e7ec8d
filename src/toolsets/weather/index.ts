import type { Tool } from '../../server/tool.js';
import { getWeatherTool } from './get-weather.js';
import { resolveWeatherOptions, type WeatherToolsetOptions } from './options.js';

export { WEATHER_DEFAULTS, type WeatherToolsetOptions } from './options.js';

/**
 * The weather toolset: get_weather, backed by Open-Meteo (no key needed).
 * Options are checked here, so a bad config fails at start-up with a
 * TypeError naming the option.
 */
export function weatherTools(options: WeatherToolsetOptions = {}): Tool[] {
  return [getWeatherTool(resolveWeatherOptions(options))];
}
