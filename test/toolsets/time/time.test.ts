import { describe, expect, it } from 'vitest';
import { ToolServer } from '../../../src/server/server.js';
import { timeTools } from '../../../src/toolsets/time/index.js';
import { memoryLogger, wire } from '../../helpers/wire.js';

const w = wire(new ToolServer({ logger: memoryLogger().logger, tools: timeTools() }));
const call = (name: string, args: Record<string, unknown>) => w.modern('tools/call', { name, arguments: args }).then((r) => r.result);

describe('time tools', () => {
  it('get_current_time tells the time now in a zone, canonicalizing its name', async () => {
    const before = Date.now();
    const res = await call('get_current_time', { timezone: 'asia/tokyo' });
    expect(res.structuredContent.timezone).toBe('Asia/Tokyo');
    expect(res.structuredContent.utcOffset).toBe('+09:00');
    expect(Math.abs(Date.parse(res.structuredContent.iso) - before)).toBeLessThan(5_000);
  });

  it("echoes the zone the caller named, not the runtime's older alias, with that alias beside it", async () => {
    // ICU's canonical id for Asia/Kolkata is the pre-2008 name Asia/Calcutta.
    const res = await call('get_current_time', { timezone: 'Asia/Kolkata' });
    expect(res.isError).toBeUndefined();
    expect(res.structuredContent).toMatchObject({ timezone: 'Asia/Kolkata', utcOffset: '+05:30' });
    expect(res.content[0].text).toContain('(Asia/Kolkata, UTC+05:30)');
    expect(res.content[0].text).not.toContain('Calcutta (');
    const alias = await call('get_current_time', { timezone: 'US/Pacific' });
    expect(alias.structuredContent).toMatchObject({ timezone: 'US/Pacific', canonicalTimezone: 'America/Los_Angeles' });
    // A name that is already the runtime's id carries no second name.
    expect((await call('get_current_time', { timezone: 'Europe/Paris' })).structuredContent).not.toHaveProperty('canonicalTimezone');
  });

  it('convert_time echoes both zones as named', async () => {
    const res = await call('convert_time', { time: '2026-01-15T09:30', from_timezone: 'Asia/Kolkata', to_timezone: 'Europe/Kyiv' });
    expect(res.isError).toBeUndefined();
    expect(res.structuredContent.from).toMatchObject({ timezone: 'Asia/Kolkata', utcOffset: '+05:30', iso: '2026-01-15T04:00:00.000Z' });
    expect(res.structuredContent.to).toMatchObject({ timezone: 'Europe/Kyiv', time: '06:00:00' });
    expect(res.content[0].text).toBe('2026-01-15 09:30:00 Asia/Kolkata = Thursday 2026-01-15 06:00:00 Europe/Kyiv');
  });

  it('defaults to UTC', async () => {
    expect((await call('get_current_time', {})).structuredContent).toMatchObject({ timezone: 'UTC', utcOffset: '+00:00' });
  });

  it.each([['Mars/Olympus'], ['+02:00'], ['../etc/passwd']])('refuses the zone %j with an actionable message', async (zone) => {
    const res = await call('get_current_time', { timezone: zone });
    expect(res.isError).toBe(true);
    expect(res.content[0].text).toMatch(/Use an IANA name such as "UTC"/);
  });

  it('convert_time honours daylight saving on both sides', async () => {
    const winter = await call('convert_time', { time: '2026-01-15T09:30', from_timezone: 'America/New_York', to_timezone: 'Europe/Paris' });
    expect(winter.structuredContent.to).toMatchObject({ date: '2026-01-15', time: '15:30:00', utcOffset: '+01:00' });
    const summer = await call('convert_time', { time: '2026-07-15T09:30', from_timezone: 'America/New_York', to_timezone: 'Europe/Paris' });
    expect(summer.structuredContent.to).toMatchObject({ time: '15:30:00', utcOffset: '+02:00' });
    expect(summer.structuredContent.from.iso).toBe('2026-07-15T13:30:00.000Z');
  });

  it('crosses the date line', async () => {
    const res = await call('convert_time', { time: '2026-03-01T23:00', from_timezone: 'UTC', to_timezone: 'Pacific/Auckland' });
    expect(res.structuredContent.to).toMatchObject({ date: '2026-03-02', time: '12:00:00', weekday: 'Monday' });
  });

  it.each([
    ['2026-03-08T02:30', 'America/New_York', /does not exist in America\/New_York/],
    ['2026-02-30T10:00', 'UTC', /not a valid calendar date/],
    ['tomorrow at noon', 'UTC', /use "YYYY-MM-DDTHH:MM"/],
  ])('refuses %j in %s', async (time, zone, message) => {
    const res = await call('convert_time', { time, from_timezone: zone, to_timezone: 'UTC' });
    expect(res.isError).toBe(true);
    expect(res.content[0].text).toMatch(message);
  });
});
