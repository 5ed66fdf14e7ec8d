import { defineTool, type Tool } from '../../server/tool.js';
import { instantOf, resolveZone, wallClock, type NamedZone } from './zones.js';

const zoneProperty = (what: string) => ({ type: 'string', description: `${what} as an IANA time zone name, e.g. "Europe/Paris"`, minLength: 1, maxLength: 64 });

const timeOutput = {
  type: 'object',
  properties: {
    timezone: { type: 'string', description: 'The zone as named in the request (letter case corrected)' },
    canonicalTimezone: {
      type: 'string',
      description:
        'Present when the runtime knows the zone under another identifier (a link such as US/Pacific → America/Los_Angeles, or an older name); both name the same rules',
    },
    iso: { type: 'string', description: 'The instant in UTC, ISO 8601' },
    date: { type: 'string', description: 'Local date, YYYY-MM-DD' },
    time: { type: 'string', description: 'Local time, HH:MM:SS' },
    weekday: { type: 'string' },
    utcOffset: { type: 'string', description: 'e.g. +02:00' },
  },
  required: ['timezone', 'iso', 'date', 'time', 'weekday', 'utcOffset'],
} as const;

function describe(instant: Date, zone: NamedZone) {
  const clock = wallClock(instant, zone.canonical);
  return {
    timezone: zone.name,
    ...(zone.canonical === zone.name ? {} : { canonicalTimezone: zone.canonical }),
    iso: instant.toISOString(),
    date: clock.date,
    time: clock.time,
    weekday: clock.weekday,
    utcOffset: clock.offset,
  };
}

export const getCurrentTime = defineTool({
  name: 'get_current_time',
  title: 'Current time',
  description: 'Tells the current date and time in a time zone (default UTC). Use it whenever the answer depends on "now". No side effects.',
  inputSchema: { type: 'object', properties: { timezone: { ...zoneProperty('The zone to show the time in'), default: 'UTC' } }, additionalProperties: false },
  outputSchema: timeOutput,
  annotations: { readOnlyHint: true, openWorldHint: false },
  handler: ({ timezone = 'UTC' }) => {
    // Answers name the zone as the caller did: the runtime's identifier can be an older name (Asia/Calcutta for Asia/Kolkata).
    const zone = resolveZone(timezone as string);
    const result = describe(new Date(), zone);
    return {
      content: [{ type: 'text', text: `${result.weekday} ${result.date} ${result.time} (${zone.name}, UTC${result.utcOffset})` }],
      structuredContent: result,
    };
  },
});

const convertTime = defineTool({
  name: 'convert_time',
  title: 'Convert time between zones',
  description: 'Converts a wall-clock time from one time zone to another, honouring daylight saving. Use it to schedule across zones. No side effects.',
  inputSchema: {
    type: 'object',
    properties: {
      time: { type: 'string', description: 'Local time in the source zone, "YYYY-MM-DDTHH:MM" (seconds optional)', maxLength: 25 },
      from_timezone: zoneProperty('The zone the time is given in'),
      to_timezone: zoneProperty('The zone to convert to'),
    },
    required: ['time', 'from_timezone', 'to_timezone'],
    additionalProperties: false,
  },
  outputSchema: { type: 'object', properties: { from: timeOutput, to: timeOutput }, required: ['from', 'to'] },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  handler: ({ time, from_timezone, to_timezone }) => {
    const from = resolveZone(from_timezone as string);
    const to = resolveZone(to_timezone as string);
    const instant = instantOf(time as string, from.canonical, from.name);
    const result = { from: describe(instant, from), to: describe(instant, to) };
    return {
      content: [
        { type: 'text', text: `${result.from.date} ${result.from.time} ${from.name} = ${result.to.weekday} ${result.to.date} ${result.to.time} ${to.name}` },
      ],
      structuredContent: result,
    };
  },
});

/** The time toolset: `get_current_time`, `convert_time`. */
export function timeTools(): Tool[] {
  return [getCurrentTime, convertTime] as Tool[];
}
