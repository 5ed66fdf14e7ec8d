import type { ListedTool } from '../../client/types.js';
import { isPlainObject } from '../../protocol/content.js';
import { sanitize } from '../../io/sanitize.js';
import type { Completer } from './prompter.js';

/** The session's commands; a line may also start with a tool's name, which calls it. */
const COMMANDS = ['help', 'tools', 'describe', 'call', 'history', 'rerun', 'read', 'structured', 'quit', 'exit'] as const;

/**
 * Splits a command line into words the way a shell would for simple cases:
 * spaces separate, 'single' and "double" quotes group (a\ b too), so
 * `call echo text="hello world"` gives text=hello world. An unclosed quote
 * runs to the end of the line. `rest` keeps the raw text after each word.
 */
export function splitWords(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"' && i + 1 < line.length && (line[i + 1] === '"' || line[i + 1] === '\\')) word += line[++i];
      else word += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (c === ' ' || c === '\t') {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/** What is after the first `n` words of the line, as typed (the JSON of `call tool {…}`). */
export function afterWords(line: string, n: number): string {
  let rest = line.trimStart();
  for (let i = 0; i < n; i++) rest = rest.replace(/^\S+\s*/, '');
  return rest.trim();
}

/**
 * Tab completion at the command prompt: command and tool names first, tool
 * names after `call` and `describe`, `argument=` names after a tool (those
 * not given yet), and link numbers or URIs after `read`.
 */
export function commandCompleter(tools: () => ListedTool[], linkUris: () => string[]): Completer {
  return (line) => {
    const endsWithSpace = /\s$/.test(line);
    const words = splitWords(line);
    const current = endsWithSpace ? '' : (words.pop() ?? '');
    const names = tools().map((t) => t.name);
    let candidates: string[];
    if (words.length === 0) {
      candidates = [...COMMANDS, ...names];
    } else if (words.length === 1 && (words[0] === 'call' || words[0] === 'describe')) {
      candidates = names;
    } else if (words[0] === 'read' && words.length === 1) {
      candidates = linkUris();
    } else {
      const toolName = words[0] === 'call' ? words[1] : words[0];
      const tool = tools().find((t) => t.name === toolName);
      const props = tool && isPlainObject(tool.inputSchema.properties) ? Object.keys(tool.inputSchema.properties) : [];
      const given = new Set(words.map((w) => w.split('=')[0]));
      candidates = current.includes('=') ? [] : props.filter((p) => !given.has(p)).map((p) => `${p}=`);
    }
    // Names from the server reach the terminal as typed text: only plain, typeable ones are offered.
    const hits = candidates.filter((c) => c.startsWith(current) && typeable(c));
    return [hits, current];
  };
}

/** No control or invisible characters (sanitize would change it), and nothing the line splitter reads specially. */
function typeable(word: string): boolean {
  return word.length <= 512 && sanitize(word) === word && !/[\s'"\\]/.test(word);
}
