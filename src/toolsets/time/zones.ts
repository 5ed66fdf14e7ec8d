import { ToolError } from '../../server/tool.js';

/**
 * Validates an IANA time zone name through Intl, which knows them all, and
 * returns its canonical spelling ("europe/paris" → "Europe/Paris").
 */
export function canonicalZone(zone: string): string {
  if (/^[+-]\d/.test(zone)) throw unknownZone(zone); // offsets such as "+02:00" are not IANA names
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    throw unknownZone(zone);
  }
}

function unknownZone(zone: string): ToolError {
  return new ToolError(`Unknown time zone ${JSON.stringify(zone)}. Use an IANA name such as "UTC", "Europe/Paris" or "America/New_York".`);
}

/** The wall-clock parts of an instant in a zone. */
export function wallClock(instant: Date, zone: string): { date: string; time: string; offset: string; weekday: string } {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
      hourCycle: 'h23', weekday: 'long', timeZoneName: 'longOffset',
    }).formatToParts(instant).map((p) => [p.type, p.value]),
  );
  const offset = parts.timeZoneName === 'GMT' ? '+00:00' : String(parts.timeZoneName).replace('GMT', '');
  return { date: `${parts.year}-${parts.month}-${parts.day}`, time: `${parts.hour}:${parts.minute}:${parts.second}`, offset, weekday: String(parts.weekday) };
}

/**
 * The instant at which the wall clock in `zone` shows `local` ("2026-03-29T02:30").
 * Resolved by correcting a UTC guess with the zone's offset twice, which also
 * settles DST transitions; a wall time the zone skips is reported.
 */
export function instantOf(local: string, zone: string): Date {
  const m = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?$/.exec(local);
  if (!m) throw new ToolError(`Cannot read the time ${JSON.stringify(local)}; use "YYYY-MM-DDTHH:MM" (seconds optional), e.g. "2026-07-28T09:30".`);
  const [, y, mo, d, h, mi, s = '0'] = m;
  const asUtc = Date.UTC(+y, +mo - 1, +d, +h, +mi, +s);
  if (Number.isNaN(asUtc) || new Date(asUtc).getUTCDate() !== +d || +h > 23 || +mi > 59 || +s > 59) {
    throw new ToolError(`${JSON.stringify(local)} is not a valid calendar date and time.`);
  }
  let guess = asUtc;
  for (let i = 0; i < 2; i++) guess = asUtc - offsetMs(new Date(guess), zone);
  const instant = new Date(guess);
  const shown = wallClock(instant, zone);
  if (`${shown.date}T${shown.time}` !== `${y}-${mo}-${d}T${h}:${mi}:${s.padStart(2, '0')}`) {
    throw new ToolError(`${local} does not exist in ${zone} (the clocks skip it, e.g. at a daylight-saving change).`);
  }
  return instant;
}

/** The zone's UTC offset at an instant, in milliseconds. */
function offsetMs(instant: Date, zone: string): number {
  const { offset } = wallClock(instant, zone);
  const m = /^([+-])(\d{2}):(\d{2})$/.exec(offset);
  if (!m) return 0;
  return (m[1] === '-' ? -1 : 1) * (+m[2] * 60 + +m[3]) * 60_000;
}
