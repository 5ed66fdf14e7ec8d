/**
 * What an error response's body says, in one line: the message of a JSON-RPC error (a server's
 * 401 often carries one with no id), an OAuth error's description, the text of an HTML error
 * page (a web framework's 404 for a path it does not serve), else the start of the text
 * (issue 21: a wrong API key printed the raw JSON).
 */
export function errorDetail(text: string): string {
  let said: string | undefined;
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    const error = body?.error;
    if (error && typeof error === 'object' && typeof (error as { message?: unknown }).message === 'string') said = (error as { message: string }).message;
    else if (typeof body?.error_description === 'string') said = body.error_description;
    else if (typeof error === 'string') said = error;
    else if (typeof body?.message === 'string') said = body.message;
  } catch {
    // not JSON: the text itself, or what an HTML page says
    if (HTML_START.test(text)) said = htmlText(text);
  }
  const clean = (said ?? text).replace(/[\x00-\x1F\x7F]+/g, ' ').trim();
  return clean.length > 200 ? `${clean.slice(0, 200)}…` : clean;
}

const HTML_START = /^\s*<(?:!doctype\s+html|html|head|body|title|h[1-6]|p|pre)\b/i;

/**
 * The words of an HTML page, as a browser would show them: Express's 404 is a whole document
 * around "<pre>Cannot POST /api/mcp</pre>", and its markup read as noise (and its closing tags
 * as paths). Only the page's head (title, styles, scripts) is left out, and entities people use in
 * error text are decoded; nothing is interpreted.
 */
function htmlText(html: string): string {
  const body = html
    .replace(/<head\b[\s\S]*?<\/head\s*>/gi, ' ')
    .replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<[^>]*>/g, ' ');
  const text = body
    .replace(/&(lt|gt|quot|#39|apos|nbsp|amp);/g, (_m, name: string) => ENTITIES[name] ?? '')
    .replace(/\s+/g, ' ')
    .trim();
  return text || html;
}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', quot: '"', '#39': "'", apos: "'", nbsp: ' ', amp: '&' };
