import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { weatherTools, type WeatherToolsetOptions } from '../../../src/toolsets/weather/index.js';
import { fixture, startFakeServer, type FakeServer } from '../../fixtures/fakes/fake-server.js';
import { serveTools, text } from '../../fixtures/fakes/harness.js';

let fake: FakeServer;

beforeAll(async () => {
  fake = await startFakeServer();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

/** One fake stands in for both Open-Meteo hosts; the paths differ. */
function setup(options: WeatherToolsetOptions = {}) {
  return serveTools(weatherTools({ geocodingUrl: fake.url, forecastUrl: fake.url, ...options }));
}

describe('get_weather', () => {
  it('geocodes the place, asks for current conditions there, and reports them structured and readable', async () => {
    fake.on('GET /v1/search', { json: fixture('open-meteo', 'geocoding-berlin') });
    fake.on('GET /v1/forecast', { json: fixture('open-meteo', 'forecast-berlin-metric') });
    const result = await setup().call('get_weather', { location: 'Berlin' });

    expect(result.isError).toBeUndefined();
    const [geo, forecast] = fake.requests;
    expect(geo.path).toBe('/v1/search');
    expect(Object.fromEntries(geo.query)).toEqual({ name: 'Berlin', count: '1', language: 'en', format: 'json' });
    expect(forecast.path).toBe('/v1/forecast');
    expect(Object.fromEntries(forecast.query)).toEqual({
      latitude: '52.52437',
      longitude: '13.41053',
      current: 'temperature_2m,relative_humidity_2m,apparent_temperature,precipitation,weather_code,wind_speed_10m',
      timezone: 'auto',
    });
    expect(result.structuredContent).toEqual({
      location: 'Berlin',
      region: 'Land Berlin',
      country: 'Germany',
      country_code: 'DE',
      latitude: 52.52437,
      longitude: 13.41053,
      timezone: 'Europe/Berlin',
      time: '2024-06-01T14:15',
      units: 'metric',
      conditions: 'Overcast',
      weather_code: 3,
      temperature: 21.3,
      apparent_temperature: 20.1,
      temperature_unit: '°C',
      humidity_percent: 48,
      precipitation: 0,
      precipitation_unit: 'mm',
      wind_speed: 11.2,
      wind_speed_unit: 'km/h',
    });
    expect(text(result)).toBe(
      'Weather in Berlin, Land Berlin, Germany (52.52, 13.41) at 2024-06-01T14:15 local time (Europe/Berlin): Overcast, 21.3 °C (feels like 20.1 °C), humidity 48 %, precipitation 0 mm, wind 11.2 km/h.',
    );
    expect(JSON.parse(result.content[1].text)).toEqual(result.structuredContent);
  });

  it('answers a legacy (2025-11-25) session the same way', async () => {
    fake.on('GET /v1/search', { json: fixture('open-meteo', 'geocoding-berlin') });
    fake.on('GET /v1/forecast', { json: fixture('open-meteo', 'forecast-berlin-metric') });
    const { wire } = setup();
    await wire.initialize('2025-11-25');
    const res = await wire.request('tools/call', { name: 'get_weather', arguments: { location: 'Berlin' } });
    expect(res.result.isError).toBeUndefined();
    expect(res.result.structuredContent).toMatchObject({ location: 'Berlin', temperature: 21.3, conditions: 'Overcast' });
  });

  it('chooses among namesakes by the region after a comma, and asks for imperial units', async () => {
    fake.on('GET /v1/search', { json: fixture('open-meteo', 'geocoding-springfield') });
    fake.on('GET /v1/forecast', { json: fixture('open-meteo', 'forecast-springfield-imperial') });
    const result = await setup().call('get_weather', { location: 'Springfield, illinois', units: 'imperial' });

    const [geo, forecast] = fake.requests;
    expect(geo.query.get('name')).toBe('Springfield');
    expect(geo.query.get('count')).toBe('10');
    expect(forecast.query.get('latitude')).toBe('39.80172');
    expect(forecast.query.get('longitude')).toBe('-89.64371');
    expect(forecast.query.get('temperature_unit')).toBe('fahrenheit');
    expect(forecast.query.get('wind_speed_unit')).toBe('mph');
    expect(forecast.query.get('precipitation_unit')).toBe('inch');
    expect(result.structuredContent).toMatchObject({
      location: 'Springfield',
      region: 'Illinois',
      country_code: 'US',
      units: 'imperial',
      conditions: 'Slight rain',
      temperature: 71.6,
      temperature_unit: '°F',
      wind_speed_unit: 'mp/h',
      precipitation: 0.04,
      precipitation_unit: 'inch',
    });
  });

  it('matches a country code or a county as the qualifier too', async () => {
    fake.on('GET /v1/search', { json: fixture('open-meteo', 'geocoding-springfield') });
    fake.on('GET /v1/forecast', { json: fixture('open-meteo', 'forecast-springfield-imperial') });
    const result = await setup().call('get_weather', { location: 'Springfield, Hampden, US' });
    expect(result.structuredContent.region).toBe('Massachusetts');
  });

  it('lists the namesakes it found when the qualifier matches none', async () => {
    fake.on('GET /v1/search', { json: fixture('open-meteo', 'geocoding-springfield') });
    const result = await setup().call('get_weather', { location: 'Springfield, Oregon' });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      'No place named "Springfield" in Oregon was found. Places with that name: Springfield, Missouri, United States; Springfield, Illinois, United States; Springfield, Massachusetts, United States. Use one of those, or spell the region or country as they are written there.',
    );
    expect(fake.requests).toHaveLength(1);
  });

  it('suggests a more specific name when the place is unknown (no "results" in the answer)', async () => {
    fake.on('GET /v1/search', { json: fixture('open-meteo', 'geocoding-none') });
    const result = await setup().call('get_weather', { location: 'Atlantis' });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      'No place named "Atlantis" was found. Check the spelling or use a more specific, well-known name (a city or town, e.g. "Portland"; add the region or country after a comma to choose, e.g. "Portland, Oregon").',
    );
    expect(fake.requests).toHaveLength(1);
  });

  it('keeps a path prefix of the configured base URLs (a proxy in front of Open-Meteo)', async () => {
    fake.on('GET /geo/v1/search', { json: fixture('open-meteo', 'geocoding-berlin') });
    fake.on('GET /wx/v1/forecast', { json: fixture('open-meteo', 'forecast-berlin-metric') });
    const result = await setup({ geocodingUrl: `${fake.url}/geo/`, forecastUrl: `${fake.url}/wx` }).call('get_weather', { location: 'Berlin' });
    expect(result.isError).toBeUndefined();
    expect(fake.requests.map((r) => r.path)).toEqual(['/geo/v1/search', '/wx/v1/forecast']);
  });

  it('reports values Open-Meteo has no data for as null, and an unknown WMO code by number', async () => {
    fake.on('GET /v1/search', { json: fixture('open-meteo', 'geocoding-berlin') });
    const forecast = fixture('open-meteo', 'forecast-berlin-metric');
    fake.on('GET /v1/forecast', {
      json: { ...forecast, current: { ...forecast.current, relative_humidity_2m: null, wind_speed_10m: null, weather_code: 42 } },
    });
    const result = await setup().call('get_weather', { location: 'Berlin' });
    expect(result.structuredContent).toMatchObject({
      humidity_percent: null,
      wind_speed: null,
      weather_code: 42,
      conditions: 'Unknown conditions (WMO code 42)',
    });
    expect(text(result)).not.toContain('humidity');
  });

  it('sends the language option to the geocoder', async () => {
    fake.on('GET /v1/search', { json: fixture('open-meteo', 'geocoding-berlin') });
    fake.on('GET /v1/forecast', { json: fixture('open-meteo', 'forecast-berlin-metric') });
    await setup({ language: 'de' }).call('get_weather', { location: 'Berlin' });
    expect(fake.requests[0].query.get('language')).toBe('de');
  });

  it('rejects bad arguments before any request', async () => {
    const result = await setup().call('get_weather', { location: 'x', units: 'kelvin', when: 'tomorrow' });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('arguments.location');
    expect(text(result)).toContain('arguments.units');
    expect(text(result)).toContain('arguments.when: unexpected field');
    expect(text(await setup().call('get_weather', { location: ', x' }))).toContain('is too short to look up');
    expect(fake.requests).toHaveLength(0);
  });

  it('lists one read-only tool with full schemas and stated side effects', async () => {
    const [tool] = await setup().list();
    expect(tool.name).toBe('get_weather');
    expect(tool.annotations).toEqual({ title: 'Current weather', readOnlyHint: true, openWorldHint: true });
    expect(tool.description).toContain('Side effects: none');
    expect(tool.inputSchema).toMatchObject({ additionalProperties: false, required: ['location'] });
    expect(tool.inputSchema.properties.units).toMatchObject({ enum: ['metric', 'imperial'], default: 'metric' });
    expect(tool.outputSchema.required).toContain('conditions');
  });

  it('fails at start-up, naming the option, for an unusable configuration', () => {
    // Whole messages: they are built by the checks shared with the github toolset (src/toolsets/options.ts).
    const fails = (options: Parameters<typeof weatherTools>[0], message: string) => expect(() => weatherTools(options)).toThrow(new TypeError(message));
    fails({ geocodingUrl: 'not a url' }, 'weather toolset: "geocodingUrl" is not a URL: "not a url"');
    fails({ forecastUrl: 'file:///etc/passwd' }, 'weather toolset: "forecastUrl" must be an http(s) URL');
    fails({ forecastUrl: 'https://api.open-meteo.com/?x=1' }, 'weather toolset: "forecastUrl" must not have a query or fragment');
    fails({ geocodingUrl: 'https://geocoding-api.open-meteo.com/#top' }, 'weather toolset: "geocodingUrl" must not have a query or fragment');
    fails({ requestTimeoutMs: -1 }, 'weather toolset: "requestTimeoutMs" must be a positive integer');
    fails({ maxResponseBytes: 1.5 }, 'weather toolset: "maxResponseBytes" must be a positive integer');
    fails({ language: 'english' }, 'weather toolset: "language" must be a two-letter ISO 639-1 code, got "english"');
  });
});
