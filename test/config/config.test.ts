import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInit } from '../../src/cli/init.js';
import { buildServer, DEFAULT_TOOLSETS } from '../../src/config/build.js';
import { findConfig, loadConfig } from '../../src/config/load.js';
import { refusedConfigProblems } from '../helpers/config.js';
import { tempDir } from '../helpers/temp.js';
import { wire } from '../helpers/wire.js';

const dir = () => tempDir('toolwright-config-');
const write = (folder: string, name: string, text: string) => {
  writeFileSync(join(folder, name), text);
  return join(folder, name);
};
const problems = refusedConfigProblems;
const names = (plan: ReturnType<typeof buildServer>) => plan.server.tools.names();

describe('loading a config', () => {
  it('finds toolwright.config.{json,yaml,yml} in a folder, or the file named', () => {
    const folder = dir();
    expect(findConfig(folder)).toBeUndefined();
    write(folder, 'toolwright.config.yaml', 'toolsets: { math: {} }\n');
    expect(findConfig(folder)).toBe(join(folder, 'toolwright.config.yaml'));
    expect(findConfig(folder, 'other.json')).toBe(join(folder, 'other.json'));
  });

  it('reads JSON and YAML alike', () => {
    const folder = dir();
    const json = loadConfig(write(folder, 'a.json', JSON.stringify({ server: { port: 4000 }, toolsets: { time: {} } })));
    const yaml = loadConfig(write(folder, 'a.yaml', 'server:\n  port: 4000\ntoolsets:\n  time: {}\n'));
    expect(yaml.config).toEqual(json.config);
    expect(yaml.baseDir).toBe(folder);
  });

  it('points at every bad key, and suggests the key that was meant', () => {
    const folder = dir();
    const file = write(
      folder,
      'bad.yaml',
      'server:\n  prot: 3000\n  approval: sometimes\ntoolsets:\n  fss: {}\n  exec: { root: . }\n  github: { repos: ["nope"] }\n',
    );
    expect(problems(() => loadConfig(file))).toEqual([
      'config.server.prot: unexpected field (not allowed by the schema); did you mean "port"?',
      'config.server.approval: expected one of "destructive", "always", "never"',
      'config.toolsets.fss: unexpected field (not allowed by the schema); did you mean "fs"?',
      'config.toolsets.exec.commands: required field is missing',
      'config.toolsets.github.repos[0]: must match pattern "^[A-Za-z0-9_.-]+/([A-Za-z0-9_.-]+|\\*)$"',
    ]);
  });

  it('says when a file cannot be parsed or does not exist, naming only the file', () => {
    const folder = dir();
    const file = write(folder, 'broken.json', '{ "server": ');
    const [parse] = problems(() => loadConfig(file));
    expect(parse).toMatch(/^it cannot be parsed/);
    expect(problems(() => loadConfig(join(folder, 'missing.yaml')))).toEqual(['the file does not exist']);
  });
});

describe('building a server from a config', () => {
  it('serves no built-in tool when no toolsets are given: a config names the ones it wants', () => {
    const folder = dir();
    const plan = buildServer({ server: { audit: false }, tools: ['./mine.ts'] }, folder, '1.0.0');
    expect(names(plan)).toEqual([]);
    expect(existsSync(join(folder, 'workspace'))).toBe(false);
  });

  it('serves fs (./workspace, created), csv, time and math for DEFAULT_TOOLSETS (serve with no config)', () => {
    const folder = dir();
    const plan = buildServer({ server: { audit: false }, toolsets: DEFAULT_TOOLSETS }, folder, '1.0.0');
    expect(names(plan)).toEqual([
      'read_file',
      'list_directory',
      'search_files',
      'file_info',
      'write_file',
      'move_file',
      'delete_file',
      'analyze_csv',
      'get_current_time',
      'convert_time',
      'calculate',
      'calculate_sum',
    ]);
    expect(existsSync(join(folder, 'workspace'))).toBe(true);
  });

  it('serves exactly the toolsets listed, minus those switched off', () => {
    const plan = buildServer({ server: { audit: false }, toolsets: { math: {}, time: { enabled: false }, weather: {} } }, dir(), '1.0.0');
    expect(names(plan)).toEqual(['calculate', 'calculate_sum', 'get_weather']);
  });

  it('builds exec, http and github from their settings, with paths relative to the config', () => {
    const folder = dir();
    const plan = buildServer(
      {
        server: { audit: false },
        toolsets: {
          exec: { root: '.', commands: { echo: { path: '/bin/echo', args: ['.*'], readOnly: true } } },
          http: { allowedHosts: ['example.com'] },
          github: { repos: ['octo/hello'] },
        },
      },
      folder,
      '1.0.0',
    );
    expect(names(plan)).toEqual(['execute_command', 'fetch_url', 'github_create_issue', 'github_search_issues', 'github_get_issue']);
  });

  it('reports a toolset that refuses its settings by name', () => {
    const [problem] = problems(() => buildServer({ server: { audit: false }, toolsets: { fs: { roots: ['./missing'], createRoots: false } } }, dir(), '1.0.0'));
    expect(problem).toMatch(/^toolsets\.fs: root .* does not exist/);
  });

  it('passes server settings through: name, limits, approval, HTTP options', async () => {
    const plan = buildServer(
      {
        server: { name: 'configured', audit: false, host: '127.0.0.2', port: 4100, allowedOrigins: ['https://app.example'], limits: { maxArgumentBytes: 64 } },
        toolsets: { math: {} },
      },
      dir(),
      '2.0.0',
    );
    expect(plan.server.info).toEqual({ name: 'configured', version: '2.0.0' });
    expect(plan.http).toMatchObject({ host: '127.0.0.2', port: 4100, allowedOrigins: ['https://app.example'] });
    const res = await wire(plan.server).modern('tools/call', { name: 'calculate', arguments: { expression: '1+1'.repeat(30) } });
    expect(res.result.content[0].text).toMatch(/the limit is 64/);
  });

  it('writes the audit trail where the config says', async () => {
    const folder = dir();
    const plan = buildServer({ server: { audit: { sqlite: false, jsonl: 'trail.jsonl' } }, toolsets: { math: {} } }, folder, '1.0.0');
    await wire(plan.server).modern('tools/call', { name: 'calculate_sum', arguments: { a: 1, b: 2 } });
    const [line] = readFileSync(join(folder, 'trail.jsonl'), 'utf8').trim().split('\n');
    expect(JSON.parse(line)).toMatchObject({ tool: 'calculate_sum', status: 'ok' });
  });
});

describe('toolwright init', () => {
  const io = () => ({ io: { stdout: () => undefined, stderr: () => undefined } });

  it('writes a commented starter config that loads, and a workspace with an example', () => {
    const folder = dir();
    expect(runInit({ dir: folder }, io().io)).toBe(0);
    const text = readFileSync(join(folder, 'toolwright.config.yaml'), 'utf8');
    expect(text).toMatch(/^# toolwright configuration/);
    const loaded = loadConfig(join(folder, 'toolwright.config.yaml'));
    expect(Object.keys(loaded.config.toolsets!)).toEqual(['fs', 'csv', 'time', 'math']);
    expect(existsSync(join(folder, 'workspace', 'example.csv'))).toBe(true);
  });

  it('refuses to overwrite a config unless forced', () => {
    const folder = dir();
    runInit({ dir: folder }, io().io);
    expect(() => runInit({ dir: folder }, io().io)).toThrow(/already exists; pass --force/);
    expect(runInit({ dir: folder, force: true }, io().io)).toBe(0);
  });
});
