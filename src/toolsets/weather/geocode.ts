import { ToolError, type ToolContext } from '../../server/tool.js';
import type { WeatherSettings } from './options.js';
import { GEOCODING, getJson } from './upstream.js';

export interface Place {
  name: string;
  region: string | null;
  country: string;
  country_code: string;
  latitude: number;
  longitude: number;
}

// With qualifiers ("Springfield, Illinois") a few candidates are fetched to choose from.
const CANDIDATES = 10;

/**
 * Finds a place with the geocoding API (`/v1/search`). The API matches on the
 * name alone — "Paris, France" finds nothing — so text after the first comma
 * is used here to choose among the candidates by region or country.
 */
export async function geocode(location: string, settings: WeatherSettings, ctx: ToolContext): Promise<Place> {
  const [name, ...qualifiers] = location
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  // The API needs two characters (one returns nothing; docs: "name").
  if (!name || name.length < 2) throw new ToolError(`"${location}" is too short to look up. Give a place name of at least two characters, e.g. "Berlin".`);
  const url = new URL(`${settings.geocodingUrl}/v1/search`);
  url.searchParams.set('name', name);
  url.searchParams.set('count', String(qualifiers.length ? CANDIDATES : 1));
  url.searchParams.set('language', settings.language);
  url.searchParams.set('format', 'json');
  const data = await getJson(GEOCODING, url, settings, ctx);
  // No match is an answer without "results" (not an error status).
  const results = data.results === undefined ? [] : data.results;
  if (!Array.isArray(results)) throw new ToolError(`The ${GEOCODING.label} answered with an unexpected shape ("results" is not a list). Try again later.`);
  const places = results.map(toPlace).filter((p): p is Candidate => p !== undefined);
  if (results.length > 0 && places.length === 0) throw new ToolError(`The ${GEOCODING.label} answered with places that lack coordinates. Try again later.`);
  if (places.length === 0) {
    throw new ToolError(
      `No place named "${name}" was found. Check the spelling or use a more specific, well-known name (a city or town, e.g. "Portland"; add the region or country after a comma to choose, e.g. "Portland, Oregon").`,
    );
  }
  if (qualifiers.length === 0) return withoutExtra(places[0]);
  const wanted = qualifiers.map((q) => q.toLowerCase());
  const match = places.find((p) => wanted.every((q) => matchesQualifier(p, q)));
  if (match) return withoutExtra(match);
  const seen = places.slice(0, 5).map((p) => [p.name, p.region, p.country].filter(Boolean).join(', '));
  throw new ToolError(
    `No place named "${name}" in ${qualifiers.join(', ')} was found. Places with that name: ${seen.join('; ')}. Use one of those, or spell the region or country as they are written there.`,
  );
}

type Candidate = Place & { extra: string[] };

function matchesQualifier(place: Candidate, qualifier: string): boolean {
  return [place.region, place.country, place.country_code, ...place.extra].some((v) => v?.toLowerCase() === qualifier);
}

/** One geocoding result ({ name, latitude, longitude, country, country_code, admin1..4, ... }); undefined when unusable. */
function toPlace(raw: unknown): Candidate | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const r = raw as Record<string, unknown>;
  if (typeof r.name !== 'string' || !isCoordinate(r.latitude, 90) || !isCoordinate(r.longitude, 180)) return undefined;
  const text = (v: unknown) => (typeof v === 'string' && v ? v : null);
  return {
    name: r.name,
    region: text(r.admin1),
    country: text(r.country) ?? '',
    country_code: text(r.country_code) ?? '',
    latitude: r.latitude as number,
    longitude: r.longitude as number,
    // Smaller divisions (county, district) also choose, but are not reported.
    extra: [r.admin2, r.admin3, r.admin4].map(text).filter((v): v is string => v !== null),
  };
}

function isCoordinate(value: unknown, limit: number): boolean {
  return typeof value === 'number' && Number.isFinite(value) && Math.abs(value) <= limit;
}

function withoutExtra({ extra: _extra, ...place }: Candidate): Place {
  return place;
}
