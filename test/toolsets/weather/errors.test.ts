import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { weatherTools, type WeatherToolsetOptions } from '../../../src/toolsets/weather/index.js';
import { closedPort, eventually, fixture, startFakeServer, type FakeServer } from '../../fixtures/fakes/fake-server.js';
import { serveTools, text } from '../../fixtures/fakes/harness.js';

let fake: FakeServer;

beforeAll(async () => {
  fake = await startFakeServer();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

function setup(options: WeatherToolsetOptions = {}, serverOptions: { timeoutMs?: number } = {}) {
  return serveTools(weatherTools({ geocodingUrl: fake.url, forecastUrl: fake.url, ...options }), serverOptions);
}

/** Calls get_weather for Berlin; the result must be an isError the model can read (never an internal error). */
async function failure(options: WeatherToolsetOptions = {}): Promise<string> {
  const result = await setup(options).call('get_weather', { location: 'Berlin' });
  expect(result.isError).toBe(true);
  expect(text(result)).not.toContain('internal error');
  return text(result);
}

const geocodingOk = () => fake.on('GET /v1/search', { json: fixture('open-meteo', 'geocoding-berlin') });

describe('get_weather failures become actionable isError results', () => {
  it('an upstream 5xx: temporary, try again', async () => {
    fake.on('GET /v1/search', { status: 503, body: '<html>Service Unavailable</html>', headers: { 'content-type': 'text/html' } });
    expect(await failure()).toBe('The Open-Meteo geocoding API is failing (HTTP 503). It is usually temporary: try again in a minute.');
  });

  it("an upstream 400 carries Open-Meteo's reason", async () => {
    geocodingOk();
    fake.on('GET /v1/forecast', { status: 400, json: fixture('open-meteo', 'error-bad-request') });
    expect(await failure()).toBe(
      "The Open-Meteo forecast API rejected the request (HTTP 400: Latitude must be in range of -90 to 90°. Given: 912.0.). Check the location and units; if they look right, the toolset's request is at fault.",
    );
  });

  it('an upstream 429: wait before asking again', async () => {
    fake.on('GET /v1/search', { status: 429, json: { error: true, reason: 'Daily API request limit exceeded. Please try again tomorrow.' } });
    expect(await failure()).toBe(
      'The Open-Meteo geocoding API is rate-limiting requests (HTTP 429: Daily API request limit exceeded. Please try again tomorrow.). Wait a minute before asking again.',
    );
  });

  it('another status names the option that sets the URL', async () => {
    fake.on('GET /v1/search', { status: 404, body: 'Not Found', headers: { 'content-type': 'text/plain' } });
    expect(await failure()).toBe("The Open-Meteo geocoding API answered HTTP 404. Check the weather toolset's geocodingUrl.");
  });

  it('malformed JSON from either API', async () => {
    fake.on('GET /v1/search', { body: '{"results": [{"name": "Berl' });
    expect(await failure()).toBe('The Open-Meteo geocoding API answered with malformed JSON (HTTP 200). This is an upstream fault; try again later.');
    geocodingOk();
    fake.on('GET /v1/forecast', { body: 'null' });
    expect(await failure()).toBe('The Open-Meteo forecast API answered with JSON that is not an object. This is an upstream fault; try again later.');
  });

  it('well-formed JSON of the wrong shape', async () => {
    fake.on('GET /v1/search', { json: { results: 'Berlin' } });
    expect(await failure()).toContain('("results" is not a list)');
    fake.on('GET /v1/search', { json: { results: [{ name: 'Berlin', latitude: 'north' }] } });
    expect(await failure()).toContain('answered with places that lack coordinates');
    geocodingOk();
    fake.on('GET /v1/forecast', { json: { latitude: 52.52, longitude: 13.42 } });
    expect(await failure()).toBe(
      'The Open-Meteo forecast API answered with an unexpected shape (there is no "current" object). This is an upstream fault; try again later.',
    );
    const forecast = fixture('open-meteo', 'forecast-berlin-metric');
    fake.on('GET /v1/forecast', { json: { ...forecast, current: { ...forecast.current, temperature_2m: '21' } } });
    expect(await failure()).toContain('"current.temperature_2m" is not a number');
  });

  it('a slow upstream is abandoned after requestTimeoutMs, and the request is aborted', async () => {
    fake.on('GET /v1/search', { hang: true });
    expect(await failure({ requestTimeoutMs: 200 })).toBe('The Open-Meteo geocoding API did not answer within 0.2 s. Try again in a minute.');
    await eventually(() => fake.requests[0]?.aborted === true);
  });

  it('a body over maxResponseBytes is refused, whether declared or streamed', async () => {
    const huge = { ...fixture('open-meteo', 'geocoding-berlin'), padding: 'z'.repeat(4096) };
    fake.on('GET /v1/search', { json: huge });
    expect(await failure({ maxResponseBytes: 1024 })).toBe(
      "The Open-Meteo geocoding API sent more than 1024 bytes, which is not a normal answer; it was not read. Try again later or check the weather toolset's geocodingUrl.",
    );
    fake.on('GET /v1/search', { json: huge, chunked: true });
    expect(await failure({ maxResponseBytes: 1024 })).toContain('sent more than 1024 bytes');
  });

  it('an unreachable upstream names the address and the cause', async () => {
    const port = await closedPort();
    expect(await failure({ geocodingUrl: `http://127.0.0.1:${port}` })).toBe(
      `Could not reach the Open-Meteo geocoding API at http://127.0.0.1:${port} (ECONNREFUSED). Check the network and the weather toolset's geocodingUrl, then retry.`,
    );
  });

  it('a redirect is not followed', async () => {
    geocodingOk();
    fake.on('GET /v1/forecast', { status: 302, headers: { location: 'http://127.0.0.1:1/elsewhere' }, body: '' });
    expect(await failure()).toBe(
      `The Open-Meteo forecast API at ${fake.url} answered with a redirect (HTTP 302). Set the weather toolset's forecastUrl to the address it redirects to.`,
    );
    expect(fake.requests.map((r) => r.path)).toEqual(['/v1/search', '/v1/forecast']);
  });

  it("passes the call's signal on: a call stopped by the server timeout aborts the upstream request", async () => {
    fake.on('GET /v1/search', { hang: true });
    const result = await setup({}, { timeoutMs: 150 }).call('get_weather', { location: 'Berlin' });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('timed out');
    await eventually(() => fake.requests[0]?.aborted === true);
  });
});
