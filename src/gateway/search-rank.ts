import type { ListedTool } from '../client/types.js';

/** Words of a query or a tool's text: lower-case letters and digits (snake_case, camelCase and kebab-case split). */
function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0);
}

/**
 * The tools that match `query` best, at most `limit`: a word in the name counts most, then in the
 * title, then in the description; a word matching a whole name word beats a prefix of one. Ties
 * keep name order, so the same query gives the same answer. Tools matching no word are left out.
 */
export function rankTools(tools: readonly ListedTool[], query: string, limit: number): ListedTool[] {
  const wanted = [...new Set(words(query))].slice(0, 32);
  if (!wanted.length) return [];
  const whole = query.trim().toLowerCase();
  const scored: Array<{ tool: ListedTool; score: number }> = [];
  for (const tool of tools) {
    const name = words(tool.name);
    const title = words(tool.title ?? '');
    const description = new Set(words((tool.description ?? '').slice(0, 8192)));
    let score = tool.name.toLowerCase() === whole ? 100 : 0;
    for (const w of wanted) {
      if (name.includes(w)) score += 10;
      else if (name.some((n) => n.startsWith(w))) score += 6;
      if (title.includes(w)) score += 4;
      if (description.has(w)) score += 2;
      else if (w.length >= 4 && [...description].some((d) => d.startsWith(w))) score += 1;
    }
    if (score > 0) scored.push({ tool, score });
  }
  scored.sort((a, b) => b.score - a.score || (a.tool.name < b.tool.name ? -1 : a.tool.name > b.tool.name ? 1 : 0));
  return scored.slice(0, limit).map((s) => s.tool);
}
