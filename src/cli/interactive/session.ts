import { CancelledError, ConnectionError, McpRpcError, TimeoutError } from '../../client/errors.js';
import type { ToolClient } from '../../client/client.js';
import type { CallToolResult, ListedTool } from '../../client/types.js';
import { isPlainObject } from '../../protocol/content.js';
import { buildArguments } from '../args.js';
import { describeRpcError, scrubPaths, UsageError } from '../errors.js';
import { formatToolList } from '../format.js';
import { isDestructiveTool } from '../../protocol/tool-annotations.js';
import { ProgressBar } from '../progress-bar.js';
import { sanitize } from '../../io/sanitize.js';
import type { Style } from '../style.js';
import { askArguments, CANCELLED } from './argument-form.js';
import { afterWords, commandCompleter, splitWords } from './command-line.js';
import { describeTool } from './describe.js';
import { CallHistory, type Outcome } from './history.js';
import { INTERRUPTED, type Prompter } from './prompter.js';
import type { SavedFiles } from './saved-files.js';
import { LinkBook, showContents, showResult } from './show-result.js';
import { renderTree } from './tree.js';
import { HELP } from './help-text.js';

interface SessionOptions {
  /** Time each call may take; undefined: the client's default (--timeout). */
  callTimeoutMs?: number;
  /** How the server was reached, for the banner ("stdio", "http://…"). */
  where: string;
}

/**
 * The interactive session: a prompt that reads commands, calls tools with
 * arguments asked from their schemas, and shows what comes back. One call
 * runs at a time; Ctrl-C cancels it (the call's AbortSignal tells the
 * server), and a second Ctrl-C leaves.
 */
export class InteractiveSession {
  private tools: ListedTool[] = [];
  private readonly history = new CallHistory();
  private readonly links = new LinkBook();
  /** Hints said once per session (show-result.ts). */
  private readonly hintsGiven = new Set<string>();
  private lastStructured?: unknown;
  private running?: AbortController;
  private readonly bar: ProgressBar;
  private leave?: () => void;
  private readonly leaving: Promise<void>;
  private left = false;
  private code = 0;
  private lastWasInterrupt = false;
  private refreshing?: Promise<void>;
  /** The listing the session starts with: a change announced before it is in is compared with it, not with nothing. */
  private firstListing?: Promise<void>;

  constructor(
    private readonly client: ToolClient,
    private readonly prompter: Prompter,
    private readonly style: Style,
    private readonly files: SavedFiles,
    private readonly options: SessionOptions,
  ) {
    this.bar = new ProgressBar(
      (text) => prompter.print(text),
      style,
      () => prompter.columns,
    );
    this.leaving = new Promise((resolve) => (this.leave = resolve));
    prompter.onInterrupt = () => this.interrupt();
    prompter.onEnd = () => this.quit();
  }

  /** Runs until the person leaves; resolves with the exit code. */
  async run(): Promise<number> {
    this.firstListing = this.client.listTools().then((tools) => void (this.tools = tools));
    await this.firstListing;
    this.banner();
    const completer = commandCompleter(
      () => this.tools,
      () => this.links.uris(),
    );
    this.prompter.idleCompleter = completer;
    const prompt = `${this.style.cyan(
      sanitize(this.client.serverInfo?.name ?? 'toolwright')
        .replace(/\s+/g, '-')
        .slice(0, 24),
    )}> `;
    while (!this.left) {
      const answer = await this.prompter.ask(prompt, completer, true);
      if (answer === undefined) break;
      if (answer === INTERRUPTED) {
        if (this.lastWasInterrupt) break;
        this.lastWasInterrupt = true;
        this.prompter.print(this.style.dim('(press Ctrl-C again, type quit or press Ctrl-D to leave)\n'));
        continue;
      }
      this.lastWasInterrupt = false;
      try {
        await this.execute(answer);
      } catch (err) {
        this.report(err);
      }
    }
    this.quit();
    return this.code;
  }

  /** The server announced a change: fetch the list again and say what changed. */
  toolsChanged(): void {
    this.refreshing ??= (async () => {
      try {
        await this.firstListing?.catch(() => {});
        const previous = this.tools;
        const before = new Set(previous.map((t) => t.name));
        const now = await this.client.listTools({ refresh: true });
        this.tools = now;
        // A notification is no news when the list is what we had: servers that register tools on
        // `initialized` (per the client's capabilities) announce a change the first listing
        // already shows (issue 21: "the server's tools changed" right after connecting).
        if (sameTools(previous, now)) return;
        const after = new Set(now.map((t) => t.name));
        const added = [...after].filter((n) => !before.has(n)).map(sanitize);
        const removed = [...before].filter((n) => !after.has(n)).map(sanitize);
        const parts = [added.length ? `added ${added.join(', ')}` : '', removed.length ? `removed ${removed.join(', ')}` : ''].filter(Boolean);
        this.prompter.notify(
          this.style.yellow(
            `(the server's tools changed${parts.length ? `: ${parts.join('; ')}` : ''}; ${now.length} tool${now.length === 1 ? '' : 's'} now)\n`,
          ),
        );
      } catch (err) {
        this.prompter.notify(this.style.red(`(the server's tools changed, but listing them failed: ${sanitize((err as Error).message)})\n`));
      } finally {
        this.refreshing = undefined;
      }
    })();
  }

  private banner(): void {
    const info = this.client.serverInfo;
    const name = info ? `${oneLine(info.name)}${info.version ? ` ${oneLine(info.version)}` : ''}` : 'the server';
    const count = `${this.tools.length} tool${this.tools.length === 1 ? '' : 's'}`;
    this.prompter.print(
      `Connected to ${this.style.bold(name)} over ${this.options.where} (${this.client.era}, protocol ${this.client.protocolVersion}): ${count}.\n`,
    );
    const instructions = this.client.instructions ? sanitize(this.client.instructions).trim().split('\n').slice(0, 8) : [];
    if (instructions.length) this.prompter.print(this.style.dim(`${instructions.map((l) => `  ${l}`).join('\n')}\n`));
    this.prompter.print(this.style.dim("Type help for commands, or a tool's name to call it. Tab completes; Ctrl-C cancels a call; Ctrl-D leaves.\n"));
  }

  private async execute(line: string): Promise<void> {
    const words = splitWords(line);
    if (!words.length) return;
    const [command, ...rest] = words;
    switch (command) {
      case 'help':
      case '?':
        return this.prompter.print(HELP);
      case 'tools':
        return this.prompter.print(formatToolList(this.tools, this.styleNow()));
      case 'describe': {
        const tool = this.findTool(rest[0]);
        if (tool) this.prompter.print(describeTool(tool, this.styleNow()));
        return;
      }
      case 'call':
        if (!rest.length) return this.prompter.print('Which tool? e.g. call <tool>; type tools to see them.\n');
        return this.callTool(rest[0], rest.slice(1), afterWords(line, 2));
      case 'history':
        return this.prompter.print(this.history.format(this.style));
      case 'rerun':
        return this.rerun(rest[0]);
      case 'read':
        return this.read(rest[0]);
      case 'structured':
        return this.prompter.print(
          this.lastStructured === undefined ? 'The last result had no structured content.\n' : renderTree(this.lastStructured, this.style),
        );
      case 'quit':
      case 'exit':
        return this.quit();
      default:
        if (/^!\d+$/.test(command)) return this.rerun(command.slice(1));
        if (this.tools.some((t) => t.name === command)) return this.callTool(command, rest, afterWords(line, 1));
        this.prompter.print(`Unknown command ${JSON.stringify(sanitize(command))}. ${this.suggest(command)}Type help for commands.\n`);
    }
  }

  private async callTool(name: string, pairs: string[], raw: string): Promise<void> {
    const tool = this.findTool(name);
    if (!tool) return;
    let args: Record<string, unknown>;
    if (raw.startsWith('{')) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(raw);
      } catch (err) {
        return this.prompter.print(this.style.red(`Those arguments are not valid JSON: ${(err as Error).message}\n`));
      }
      if (!isPlainObject(parsed)) return this.prompter.print(this.style.red('The arguments must be a JSON object.\n'));
      args = parsed;
    } else {
      const given = buildArguments(pairs, undefined, tool.inputSchema, (note) => this.prompter.print(this.style.dim(`(${note})\n`)));
      const needsForm = pairs.length === 0 ? hasProperties(tool) : missingRequired(tool, given).length > 0;
      if (pairs.length && needsForm) this.prompter.print(this.style.dim(`(still needed: ${missingRequired(tool, given).map(sanitize).join(', ')})\n`));
      if (needsForm) {
        const asked = await askArguments(
          tool.inputSchema,
          { ask: (q, c) => this.prompter.ask(q, c), print: (t) => this.prompter.print(t), style: this.style },
          given,
        );
        if (asked === CANCELLED) return this.prompter.print(this.style.dim('(cancelled; nothing was sent)\n'));
        args = asked;
      } else {
        args = given;
      }
    }
    await this.send(tool, args);
  }

  /** tools.mdx "Security Considerations": a destructive call is shown and confirmed before it is sent. */
  private async confirm(tool: ListedTool, args: Record<string, unknown>): Promise<boolean> {
    if (!isDestructiveTool(tool.annotations)) return true;
    const why =
      tool.annotations?.destructiveHint === true ? 'says it is destructive' : 'does not say it is read-only or harmless, so it may change or delete things';
    this.prompter.print(
      `${this.style.yellow(`${sanitize(tool.name)} ${why}.`)} It would be called with:\n${Object.keys(args).length ? renderTree(args, this.style) : '  (no arguments)\n'}`,
    );
    for (;;) {
      const answer = await this.prompter.ask(`Send this call? [y/N] `);
      if (typeof answer !== 'string') return false;
      const text = answer.trim().toLowerCase();
      if (text === 'y' || text === 'yes') return true;
      if (text === '' || text === 'n' || text === 'no') return false;
    }
  }

  private async send(tool: ListedTool, args: Record<string, unknown>): Promise<void> {
    if (!(await this.confirm(tool, args))) {
      this.history.add(tool.name, args, 'not sent');
      return this.prompter.print(this.style.dim('(not sent)\n'));
    }
    const controller = new AbortController();
    this.running = controller;
    const started = Date.now();
    let outcome: Outcome = 'failed';
    try {
      const call = this.client.callTool(tool.name, args, {
        signal: controller.signal,
        onProgress: (p) => this.bar.update(p),
        ...(this.options.callTimeoutMs ? { timeoutMs: this.options.callTimeoutMs } : {}),
      });
      // Leaving does not wait for the call; its late failure is nobody's unhandled rejection.
      call.catch(() => {});
      const result = await Promise.race([call, this.leaving.then(() => undefined)]);
      this.bar.clear();
      if (!result) return;
      outcome = result.isError ? 'tool error' : 'ok';
      this.show(result, tool.name, Date.now() - started);
    } catch (err) {
      this.bar.clear();
      if (err instanceof CancelledError && controller.signal.aborted) {
        outcome = 'cancelled';
        // The Ctrl-C that cancelled counts as the first: one more at the prompt leaves.
        this.lastWasInterrupt = true;
        this.prompter.print(this.style.yellow('(cancelled; the server was told to stop. Ctrl-C again leaves)\n'));
      } else {
        throw err;
      }
    } finally {
      this.running = undefined;
      this.history.add(tool.name, args, outcome, Date.now() - started);
    }
  }

  private show(result: CallToolResult, tool: string, ms: number): void {
    this.lastStructured = result.structuredContent;
    showResult(result, tool, ms, {
      style: this.style,
      files: this.files,
      links: this.links,
      print: (t) => this.prompter.print(t),
      hintsGiven: this.hintsGiven,
    });
  }

  private async rerun(ref: string | undefined): Promise<void> {
    const entry = ref && /^\d+$/.test(ref) ? this.history.get(Number(ref)) : undefined;
    if (!entry) return this.prompter.print('Which call? rerun <n>, with n from history.\n');
    const tool = this.findTool(entry.tool);
    if (!tool) return;
    this.prompter.print(this.style.dim(`(calling ${sanitize(entry.tool)} again with ${sanitize(JSON.stringify(entry.args)).slice(0, 200)})\n`));
    await this.send(tool, entry.args);
  }

  private async read(ref: string | undefined): Promise<void> {
    const uri = ref ? this.links.resolve(ref) : undefined;
    if (!uri) return this.prompter.print('Which resource? read <n> (a link number) or read <uri>.\n');
    const controller = new AbortController();
    this.running = controller;
    try {
      const read = await this.client.readResource(uri, { signal: controller.signal });
      if (!read.contents.length) this.prompter.print('The resource is empty.\n');
      for (const contents of read.contents)
        showContents(contents, 'resource', { style: this.style, files: this.files, links: this.links, print: (t) => this.prompter.print(t) });
    } catch (err) {
      if (err instanceof CancelledError && controller.signal.aborted) this.prompter.print(this.style.yellow('(cancelled)\n'));
      else throw err;
    } finally {
      this.running = undefined;
    }
  }

  /** Ctrl-C with no question asked: cancel the running call; the second one leaves. */
  private interrupt(): void {
    const running = this.running;
    if (running && !running.signal.aborted) {
      this.bar.clear();
      this.prompter.print(this.style.yellow('^C cancelling…\n'));
      running.abort(new Error('cancelled at the terminal (Ctrl-C)'));
      return;
    }
    if (running) {
      this.prompter.print('^C leaving\n');
      this.quit();
    }
  }

  private quit(): void {
    if (this.left) return;
    this.left = true;
    this.running?.abort(new Error('the session ended'));
    this.leave?.();
    this.prompter.close();
  }

  private report(err: unknown): void {
    this.bar.clear();
    if (err instanceof UsageError) return void this.prompter.print(`${this.style.red(sanitize(err.message))}\n`);
    if (err instanceof ConnectionError) {
      this.prompter.print(`${this.style.red(`The connection is gone: ${scrubPaths(sanitize(err.message))}`)}\n`);
      this.code = 2;
      return void this.quit();
    }
    const message = err instanceof McpRpcError ? describeRpcError(err) : err instanceof TimeoutError ? err.message : (err as Error).message;
    this.prompter.print(`${this.style.red(scrubPaths(sanitize(message)))}\n`);
  }

  private findTool(name: string | undefined): ListedTool | undefined {
    if (!name) {
      this.prompter.print('Which tool? Type tools to see them.\n');
      return undefined;
    }
    const tool = this.tools.find((t) => t.name === name);
    if (!tool) this.prompter.print(`There is no tool ${JSON.stringify(sanitize(name))}. ${this.suggest(name)}\n`);
    return tool;
  }

  private suggest(word: string): string {
    const close = this.tools.map((t) => t.name).filter((n) => n.includes(word) || word.includes(n) || n.startsWith(word.slice(0, 3)));
    return close.length ? `Did you mean ${close.slice(0, 3).map(sanitize).join(', ')}? ` : '';
  }

  /** The width may have changed since the session began. */
  private styleNow(): Style {
    return { ...this.style, width: Math.max(40, Math.min(this.prompter.columns, 240)) };
  }
}

function hasProperties(tool: ListedTool): boolean {
  return isPlainObject(tool.inputSchema.properties) && Object.keys(tool.inputSchema.properties).length > 0;
}

function missingRequired(tool: ListedTool, given: Record<string, unknown>): string[] {
  const required = Array.isArray(tool.inputSchema.required) ? tool.inputSchema.required.filter((r): r is string => typeof r === 'string') : [];
  return required.filter((r) => !Object.hasOwn(given, r));
}

function oneLine(text: string): string {
  return sanitize(text).replace(/\s+/g, ' ').slice(0, 80);
}

/** The same tools, each defined the same (in any order). */
function sameTools(a: readonly ListedTool[], b: readonly ListedTool[]): boolean {
  if (a.length !== b.length) return false;
  const key = (tools: readonly ListedTool[]) =>
    tools
      .map((t) => JSON.stringify(t))
      .sort()
      .join('\n');
  return key(a) === key(b);
}
