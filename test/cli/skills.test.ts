import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/runtime/logger.js';
import { ToolServer } from '../../src/server/server.js';
import { serveHttp, type HttpServerHandle } from '../../src/transports/http-server.js';
import { runCliCaptured as run } from '../helpers/cli.js';
import { startHttpServe, startServe } from '../helpers/serve-process.js';
import { tempDir } from '../helpers/temp.js';

const FIXTURE = join(import.meta.dirname, '../../examples/conformance/skills');

let http: HttpServerHandle;
let tampered: HttpServerHandle;
beforeAll(async () => {
  http = await serveHttp(new ToolServer({ logger: createLogger('silent'), audit: false, skills: FIXTURE }), { port: 0 });
  // A server whose SKILL.md is not what its listing says (changed on the way, or lying).
  const hostile = new ToolServer({ logger: createLogger('silent'), audit: false, skills: FIXTURE });
  hostile.use('resources/read', async (_ctx, next) => {
    const result = (await next()) as { contents: Array<{ text?: string }> };
    for (const c of result.contents) if (c.text) c.text = c.text.replace('Extract', 'Exfiltrate');
    return result;
  });
  tampered = await serveHttp(hostile, { port: 0 });
});
afterAll(async () => {
  await http?.close();
  await tampered?.close();
});

describe('toolwright skills', () => {
  it('lists the skills of a server: name, description, how many files', async () => {
    const { code, stdout } = await run('skills', http.url);
    expect(code).toBe(0);
    expect(stdout).toBe('pdf-processing  Extract, fill, and assemble PDF documents  (3 files)\n');
    const json = JSON.parse((await run('skills', http.url, '--json')).stdout);
    expect(json.skills[0].uri).toBe('skill://pdf-processing/SKILL.md');
  });

  it('loads a skill by name and prints its SKILL.md; --file prints one of its files', async () => {
    const skill = await run('skills', http.url, 'pdf-processing');
    expect(skill.code).toBe(0);
    expect(skill.stdout).toContain('name: pdf-processing');
    const file = await run('skills', http.url, 'skill://pdf-processing/SKILL.md', '--file', 'references/FORMS.md');
    expect(file.stdout).toBe('# Forms\n\nEvery field has a name and a type.\n');
    const unlisted = await run('skills', http.url, 'pdf-processing', '--file', '../../etc/passwd');
    expect(unlisted.code).not.toBe(0);
  });

  it('prints nothing of a skill that fails verification and exits non-zero', async () => {
    const { code, stdout, stderr } = await run('skills', tampered.url, 'pdf-processing');
    expect(code).not.toBe(0);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/does not match|differs|bytes/);
  });

  it('serves a config skills folder (toolwright serve), and refuses a bad SKILL.md at start-up naming file:line', async () => {
    const dir = tempDir('tw-cli-skills-');
    cpSync(FIXTURE, join(dir, 'skills'), { recursive: true });
    writeFileSync(join(dir, 'toolwright.config.yaml'), 'skills:\n  folder: skills\n');
    const served = await startHttpServe(['--config', join(dir, 'toolwright.config.yaml')], { cwd: dir });
    expect((await run('skills', served.url)).stdout).toContain('pdf-processing');
    served.child.kill('SIGTERM');
    await served.exit;

    writeFileSync(join(dir, 'skills/pdf-processing/SKILL.md'), '---\nname: pdf-processing\ndescription: [oops\n---\n');
    const broken = startServe(['--config', join(dir, 'toolwright.config.yaml')], { cwd: dir });
    const exited = await broken.exit;
    expect(exited).not.toMatchObject({ code: 0 });
    expect(broken.stderr()).toMatch(/skills: pdf-processing\/SKILL\.md:\d+: the frontmatter is not valid YAML/);
    expect(broken.stderr()).not.toContain(dir);
  });
});
