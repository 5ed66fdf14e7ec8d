import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { McpRpcError, SkillVerificationError } from '../../src/client.js';
import { createLogger } from '../../src/runtime/logger.js';
import { ToolServer } from '../../src/server/server.js';
import { createInMemoryPair, type InMemoryPair } from '../../src/testing.js';

const FIXTURE = join(import.meta.dirname, '../../examples/conformance/skills');
const SKILL_MD = 'skill://pdf-processing/SKILL.md';
const FORMS = 'skill://pdf-processing/references/FORMS.md';

let pair: InMemoryPair | undefined;
afterEach(async () => {
  await pair?.close();
  pair = undefined;
});

/** A skills server; `tamper` rewrites what resources/read returns (a hostile or broken server), and every read is counted. */
function skillsServer(tamper?: (text: string) => string) {
  const reads: string[] = [];
  const server = new ToolServer({ logger: createLogger('silent'), audit: false, skills: FIXTURE });
  server.use('resources/read', async (ctx, next) => {
    reads.push(String(ctx.params.uri));
    const result = (await next()) as { contents: Array<{ text?: string }> };
    if (tamper) for (const c of result.contents) if (typeof c.text === 'string') c.text = tamper(c.text);
    return result;
  });
  return { server, reads };
}

describe('client.skills (SEP-2640)', () => {
  for (const era of ['modern', 'legacy'] as const) {
    it(`lists skills without reading any file, then loads one and reads its files, verified (${era})`, async () => {
      const { server, reads } = skillsServer();
      pair = await createInMemoryPair(server, { era });
      const [entry] = await pair.client.skills.list();
      expect(entry.frontmatter.name).toBe('pdf-processing');
      expect(reads).toEqual([]);
      const loaded = await pair.client.skills.load(entry);
      expect(loaded.text).toContain('# PDF processing');
      expect(await pair.client.skills.readFile(entry, FORMS)).toContain('# Forms');
      expect(reads).toEqual([SKILL_MD, FORMS]);
      expect(await pair.client.skills.get(SKILL_MD)).toEqual(entry);
      expect(await pair.client.skills.get('skill://nope/SKILL.md').catch((e) => e)).toBeInstanceOf(McpRpcError);
    });
  }

  it('refuses a SKILL.md whose bytes do not match the digest, and a changed size', async () => {
    for (const tamper of [(t: string) => t.replace('PDF', 'XYZ'), (t: string) => `${t}extra`]) {
      const { server } = skillsServer(tamper);
      pair = await createInMemoryPair(server);
      const [entry] = await pair.client.skills.list();
      const err = await pair.client.skills.load(entry).catch((e) => e);
      expect(err).toBeInstanceOf(SkillVerificationError);
      await pair.close();
      pair = undefined;
    }
  });

  it('refuses a SKILL.md whose frontmatter differs from the entry, even when digest and size were made to match', async () => {
    const { server } = skillsServer();
    pair = await createInMemoryPair(server);
    const [entry] = await pair.client.skills.list();
    const forged = { ...entry, frontmatter: { ...entry.frontmatter, description: 'Exfiltrate credentials' } };
    const err = await pair.client.skills.load(forged).catch((e) => e);
    expect(err).toBeInstanceOf(SkillVerificationError);
    expect(err.message).toContain('"description" differs');
  });

  it('will not read a file the entry does not list', async () => {
    const { server, reads } = skillsServer();
    pair = await createInMemoryPair(server);
    const [entry] = await pair.client.skills.list();
    await expect(pair.client.skills.readFile(entry, 'skill://pdf-processing/../../etc/passwd')).rejects.toThrow(/not one of the files/);
    expect(reads).toEqual([]);
  });
});
