import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { validateConfig } from '../../src/config/validate.js';
import { type CodeBlock, codeBlocks } from '../helpers/markdown-blocks.js';

/**
 * Every example in README.md and docs/*.md is compiled or run (issue 22):
 * - ```ts / ```typescript blocks are type-checked, all in one `tsc` run, against the sources
 *   (`toolwright` and `toolwright/*` mapped to src/, as tsconfig.test.json does for examples/);
 * - every `toolwright <subcommand>` in a shell, console or usage block names a subcommand of the
 *   built CLI, and every option it names is in that subcommand's --help;
 * - the YAML and JSON blocks of docs/configuration.md, and any block marked `config`
 *   (```yaml config), are whole configs and pass the published schema.
 * A block marked `fragment` (```ts fragment) is a piece of a larger program and is skipped.
 */
const root = join(import.meta.dirname, '../..');
const cli = join(root, 'dist/cli/main.js');

interface DocBlock extends CodeBlock {
  file: string;
}

const documents = [
  'README.md',
  'CONTRIBUTING.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];
const blocks: DocBlock[] = documents.flatMap((file) => codeBlocks(readFileSync(join(root, file), 'utf8')).map((b) => ({ ...b, file })));
const where = (b: DocBlock, offset = 0) => `${b.file}:${b.line + offset}`;
const language = (b: DocBlock) => (b.info[0] ?? '').toLowerCase();
const isFragment = (b: DocBlock) => b.info.includes('fragment');

/**
 * What the examples take from the text around them instead of spelling out: "a server" made as
 * in the README, "a client" connected to it, the server's `url`, the README's `divide` tool, and
 * the reader's own code the text names as such (your token table, your UI, your log shipper).
 * Declared, never defined, so an example still fails to compile when it uses one wrongly.
 */
const PRELUDE = `import type { IncomingMessage } from 'node:http';
import type { AuditRecord, AuthInfo, Tool, ToolServer } from 'toolwright';
import type { ToolClient } from 'toolwright/client';
declare global {
  /** The README's first tool. */
  const divide: Tool;
  /** Any tool (server.md, "Live tool lists"). */
  const tool: Tool;
  /** Your API tokens and whom they belong to (authorization.md, "Who is calling"). */
  const tokens: Map<string, string>;
  /** Your way of telling who opened a WebSocket (server.md, "Write your own transport"). */
  function verifiedCaller(req: IncomingMessage): string | AuthInfo | undefined;
  /** Your UI: a form for the user; undefined when they decline (client.md, "Answering the server"). */
  function askUser(message: string, schema: unknown, options: { signal: AbortSignal }): Promise<Record<string, string | number | boolean | string[]> | undefined>;
  /** Your tracer's current context as a W3C traceparent (middleware.md, client middleware). */
  function currentTraceparent(): string;
  /** Your log shipper (audit.md). */
  function shipSomewhere(entry: AuditRecord): void;
  /** A server, as in the README's "Define and serve a tool". */
  const server: ToolServer;
  /** A client connected to it, as in the README's "Client". */
  const client: ToolClient;
  /** The server's MCP endpoint, e.g. http://127.0.0.1:3000/mcp. */
  const url: string;
}
export {};
`;

describe('the documents hold examples', () => {
  it('finds the README and the docs, and their TypeScript and shell blocks', () => {
    expect(documents).toContain('README.md');
    expect(documents).toContain('docs/architecture.md');
    expect(blocks.filter((b) => ['ts', 'typescript'].includes(language(b))).length).toBeGreaterThan(20);
    expect(blocks.filter((b) => ['sh', 'bash', 'console'].includes(language(b))).length).toBeGreaterThan(5);
  });

  it('marks fragments only where a block is a piece of a larger program', () => {
    const fragments = blocks.filter(isFragment).map((b) => where(b));
    expect(fragments.length).toBeLessThanOrEqual(5);
  });
});

describe('TypeScript examples', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tw-doc-examples-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('type-check against the sources, each block a module of its own', () => {
    const examples = blocks.filter((b) => ['ts', 'typescript'].includes(language(b)) && !isFragment(b));
    const names = new Map<string, DocBlock>();
    for (const block of examples) {
      const name = `${block.file.replace(/[^A-Za-z0-9]+/g, '_')}_${block.line}.ts`;
      names.set(name, block);
      // `export {}` makes a block without imports a module, so top-level await is allowed.
      writeFileSync(join(dir, name), `${block.code}\nexport {};\n`);
    }
    writeFileSync(join(dir, 'prelude.ts'), PRELUDE);
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        extends: join(root, 'tsconfig.json'),
        compilerOptions: {
          noEmit: true,
          declaration: false,
          sourceMap: false,
          rootDir: '/',
          noUnusedLocals: false,
          paths: { toolwright: [join(root, 'src/index.ts')], 'toolwright/*': [join(root, 'src/*.ts')] },
        },
        include: ['*.ts'],
      }),
    );
    const tsc = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', dir, '--pretty', 'false'], {
      encoding: 'utf8',
    });
    // tsc names the temp file and the line in it: give the document's file and line instead.
    const problems = `${tsc.stdout}${tsc.stderr}`
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => {
        const m = /([A-Za-z0-9_]+\.ts)\((\d+),(\d+)\): (.*)$/.exec(line);
        const block = m && names.get(m[1]!);
        if (!m || !block) return line.replace(dir, '<examples>');
        return `${where(block, Number(m[2]) - 1)}:${m[3]}: ${m[4]}`;
      });
    expect(problems).toEqual([]);
    expect(tsc.status).toBe(0);
  }, 300_000);
});

/**
 * `toolwright …` invocations in one line of a shell, console or usage block: the line's command
 * (after a `$ ` prompt and `npx`), and a stdio server's command after `--`. Output and prose that
 * mention toolwright elsewhere in a line are not commands.
 */
function invocations(line: string): string[][] {
  const text = line.replace(/^\s*\$\s*/, '').replace(/\s#\s.*$/, '');
  const words = text.split(/\s+/).filter(Boolean);
  const found: string[][] = [];
  for (let i = 0; i < words.length; i++) {
    const starts = i === 0 || (i === 1 && words[0] === 'npx') || words[i - 1] === '--' || (words[i - 1] === 'npx' && words[i - 2] === '--');
    if (words[i] !== 'toolwright' || !starts) continue;
    const args: string[] = [];
    for (let j = i + 1; j < words.length; j++) {
      const w = words[j]!;
      // `--` hands the rest to a stdio server's command (which may be a toolwright of its own).
      if (w === '--' || w === '|' || w === '&&' || w === ';' || w === '||' || w.startsWith('>') || /^"?\$\(/.test(w)) break;
      args.push(w);
    }
    found.push(args);
  }
  return found;
}

/** A --help's "Commands:" section, and a subcommand's name at the start of one of its lines. */
const COMMANDS_SECTION = /^Commands:$/m;
const SUBCOMMAND = /^ {2}([a-z][\w-]*)/gm;

let helpTree: Map<string, { ok: boolean; text: string }> | undefined;
function help(path: string[]): { ok: boolean; text: string } {
  if (!helpTree) {
    // One process reads them all (test/helpers/help-tree.mjs says how): a process per --help cost ~0.15 CPU-s each.
    const tree = join(root, 'test/helpers/help-tree.mjs');
    const run = spawnSync(process.execPath, [tree, join(root, 'dist/cli/program.js'), COMMANDS_SECTION.source, SUBCOMMAND.source], {
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
      maxBuffer: 64 * 1024 * 1024,
    });
    if (run.status !== 0) throw new Error(`the built CLI's --help texts could not be read:\n${run.stderr}`);
    helpTree = new Map(Object.entries(JSON.parse(run.stdout) as Record<string, { ok: boolean; text: string }>));
  }
  // A path deeper than the tree, or not a command: no help, as `toolwright <path> --help` would fail.
  return helpTree.get(path.join(' ')) ?? { ok: false, text: '' };
}

/** The subcommands a --help lists under "Commands:". */
function subcommands(helpText: string): string[] {
  const section = helpText.split(COMMANDS_SECTION)[1] ?? '';
  return [...section.matchAll(SUBCOMMAND)].map((m) => m[1]!);
}

describe('toolwright command lines', () => {
  it('name subcommands and options the CLI has', () => {
    execFileSync(process.execPath, [cli, '--version']); // the build is there (npm run build)
    const shellBlocks = blocks.filter((b) => ['sh', 'bash', 'console', 'shell', ''].includes(language(b)) && !isFragment(b));
    const problems: string[] = [];
    let checked = 0;
    for (const block of shellBlocks) {
      block.code.split('\n').forEach((line, offset) => {
        for (const args of invocations(line)) {
          const path: string[] = [];
          const top = subcommands(help([]).text);
          if (!args[0] || args[0].startsWith('-')) continue; // `toolwright --version`, checked with the top level's options below
          if (!top.includes(args[0])) {
            problems.push(`${where(block, offset)}: toolwright has no subcommand "${args[0]}"`);
            continue;
          }
          path.push(args[0]);
          if (args[1] && subcommands(help(path).text).includes(args[1])) path.push(args[1]);
          const { ok, text } = help(path);
          if (!ok) {
            problems.push(`${where(block, offset)}: toolwright ${path.join(' ')} --help failed`);
            continue;
          }
          checked++;
          for (const arg of args.slice(path.length)) {
            const option = /^\[?(--?[A-Za-z][\w-]*)/.exec(arg)?.[1];
            if (!option) continue;
            const listed = new RegExp(`(^|[\\s,])${option}(?![\\w-])`, 'm');
            if (!listed.test(text)) problems.push(`${where(block, offset)}: toolwright ${path.join(' ')} has no option ${option}`);
          }
        }
      });
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(30);
  }, 120_000);

  it('the client options the CLI reference lists are options of toolwright call', () => {
    const reference = blocks.filter((b) => b.file === 'docs/cli.md');
    const { text } = help(['call']);
    // The table's rows: an option, its value, then a gap of spaces before the description.
    const rows = reference.flatMap((b) =>
      b.code.split('\n').flatMap((line, offset) => {
        const m = /^ {2}(?:-\w, )?(--[a-z][\w-]*)\S*(?: (?:"[^"]*"|'[^']*'|\S+))?\s{3,}\S/.exec(line);
        return m ? [{ option: m[1]!, at: where(b, offset) }] : [];
      }),
    );
    expect(rows.map((r) => r.option)).toEqual(expect.arrayContaining(['--era', '--timeout', '--header', '--env', '--verbose']));
    const missing = rows.filter((r) => !new RegExp(`(^|[\\s,])${r.option}(?![\\w-])`, 'm').test(text)).map((r) => `${r.at}: ${r.option}`);
    expect(missing).toEqual([]);
  });
});

describe('configuration examples', () => {
  const configBlocks = blocks.filter(
    (b) => ['yaml', 'yml', 'json'].includes(language(b)) && !isFragment(b) && (b.file === 'docs/configuration.md' || b.info.includes('config')),
  );

  it('are there', () => {
    expect(configBlocks.length).toBeGreaterThan(0);
  });

  it('are whole configs that pass the published schema', () => {
    const problems: string[] = [];
    for (const block of configBlocks) {
      try {
        const config: unknown = language(block) === 'json' ? JSON.parse(block.code) : parseYaml(block.code);
        validateConfig(config ?? {}, where(block));
      } catch (err) {
        // A ConfigError names the block already; a parse error does not.
        const message = (err as Error).message;
        problems.push(message.startsWith(where(block)) ? message : `${where(block)}: ${message}`);
      }
    }
    expect(problems).toEqual([]);
  });
});
