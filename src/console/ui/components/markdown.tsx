import DOMPurify from 'dompurify';
import { Marked } from 'marked';

/**
 * Markdown from a server, made safe to show: raw HTML in it is shown as text (escaped, never
 * parsed), links keep only http(s) and mailto targets and open in a new tab without a referrer,
 * images become their alt text (nothing is loaded from a server's chosen host), and DOMPurify
 * checks what comes out against an allow-list as the last net.
 */
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const marked = new Marked({
  gfm: true,
  async: false,
  renderer: {
    html: ({ text }) => escapeHtml(text),
    image: ({ text }) => escapeHtml(text ? `[image: ${text}]` : '[image]'),
    link({ href, tokens }) {
      const inner = this.parser.parseInline(tokens);
      return /^(https?:|mailto:)/i.test(href) ? `<a href="${escapeHtml(href)}" target="_blank" rel="noopener noreferrer">${inner}</a>` : inner;
    },
  },
});

// Every link that survives opens in a new tab, without the page as its opener or referrer.
DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
});

const ALLOWED_TAGS = [
  'p',
  'br',
  'hr',
  'em',
  'strong',
  'del',
  'code',
  'pre',
  'blockquote',
  'ul',
  'ol',
  'li',
  'a',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
  'input',
];

export function renderMarkdown(text: string): string {
  const html = marked.parse(text) as string;
  return DOMPurify.sanitize(html, {
    ALLOWED_TAGS,
    ALLOWED_ATTR: ['href', 'target', 'rel', 'type', 'checked', 'disabled', 'align'],
    ALLOWED_URI_REGEXP: /^(https?:|mailto:)/i,
  });
}

/** Whether a text block reads as Markdown (headings, lists, emphasis, code, links, tables). */
export function looksLikeMarkdown(text: string): boolean {
  return /(^|\n)(#{1,6} |[-*+] |\d+\. |> |```|\|.*\|)|\*\*[^*]+\*\*|\[[^\]]+\]\([^)]+\)|`[^`]+`/.test(text);
}

export function Markdown({ text }: { text: string }) {
  // Sanitized above: raw HTML escaped, allow-listed tags and URLs, DOMPurify as the last net.
  return <div class="markdown" dangerouslySetInnerHTML={{ __html: renderMarkdown(text) }} />;
}
