import { ToolError } from '../../server/tool.js';

/** A zone as the caller named it, and the runtime's identifier for the same rules. */
export interface NamedZone {
  /** The caller's name, with its letter case corrected when the runtime knows the exact spelling ("asia/tokyo" → "Asia/Tokyo"). */
  name: string;
  /**
   * The identifier ICU/CLDR resolves it to. It can differ from the IANA
   * name the caller used: links resolve (US/Pacific → America/Los_Angeles),
   * and CLDR keeps some pre-rename names (Asia/Kolkata → Asia/Calcutta,
   * Europe/Kyiv → Europe/Kiev), which is why answers echo `name`.
   */
  canonical: string;
}

let spellings: Map<string, string> | undefined;

/** Zone names the runtime lists, by lower case: where a name's correct capitals come from. */
function knownSpelling(zone: string): string | undefined {
  spellings ??= new Map(Intl.supportedValuesOf('timeZone').map((z) => [z.toLowerCase(), z]));
  return spellings.get(zone.toLowerCase());
}

/**
 * Validates an IANA time zone name through Intl, which knows them all, and
 * returns it as the caller named it (capitals corrected) beside the
 * runtime's identifier for it.
 */
export function resolveZone(zone: string): NamedZone {
  if (/^[+-]\d/.test(zone)) throw unknownZone(zone); // offsets such as "+02:00" are not IANA names
  let canonical: string;
  try {
    canonical = new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    throw unknownZone(zone);
  }
  const name = canonical.toLowerCase() === zone.toLowerCase() ? canonical : (knownSpelling(zone) ?? zone);
  return { name, canonical };
}

function unknownZone(zone: string): ToolError {
  return new ToolError(`Unknown time zone ${JSON.stringify(zone)}. Use an IANA name such as "UTC", "Europe/Paris" or "America/New_York".`);
}

/** The wall-clock parts of an instant in a zone. */
export function wallClock(instant: Date, zone: string): { date: string; time: string; offset: string; weekday: string } {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
      weekday: 'long',
      timeZoneName: 'longOffset',
    })
      .formatToParts(instant)
      .map((p) => [p.type, p.value]),
  );
  const offset = parts.timeZoneName === 'GMT' ? '+00:00' : String(parts.timeZoneName).replace('GMT', '');
  return { date: `${parts.year}-${parts.month}-${parts.day}`, time: `${parts.hour}:${parts.minute}:${parts.second}`, offset, weekday: String(parts.weekday) };
}

/**
 * The instant at which the wall clock in `zone` shows `local` ("2026-03-29T02:30").
 * Resolved by correcting a UTC guess with the zone's offset twice, which also
 * settles DST transitions; a wall time the zone skips is reported.
 */
export function instantOf(local: string, zone: string, shownZone = zone): Date {
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
    throw new ToolError(`${local} does not exist in ${shownZone} (the clocks skip it, e.g. at a daylight-saving change).`);
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
