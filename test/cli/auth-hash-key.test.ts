import { describe, expect, it } from 'vitest';
import { authCommand } from '../../src/cli/auth.js';
import { runCli } from '../../src/cli/program.js';
import { hashApiKey } from '../../src/policy/auth/api-keys.js';

function capture() {
  let stdout = '';
  let stderr = '';
  return { io: { stdout: (t: string) => void (stdout += t), stderr: (t: string) => void (stderr += t) }, out: () => stdout, err: () => stderr };
}

describe('toolwright auth hash-key', () => {
  it('--generate prints a new key once and the hash that matches it', async () => {
    const { io, out } = capture();
    expect(await runCli(['auth', 'hash-key', '--generate', '--principal', 'ci-bot'], io)).toBe(0);
    const key = /^key: (\S+)$/m.exec(out())![1];
    const hash = /^hash: (\S+)$/m.exec(out())![1];
    expect(key).toMatch(/^twk_[A-Za-z0-9_-]{43}$/);
    expect(hash).toBe(hashApiKey(key));
    expect(out()).toContain(`- { hash: "${hash}", principal: "ci-bot", scopes: [] }`);
  });

  it('hashes a key read from stdin, and refuses a short one', async () => {
    const key = 'my-own-random-key-0123456789abcdef';
    let code = -1;
    const { io, out } = capture();
    await authCommand(
      io,
      (c) => (code = c),
      async () => `${key}\n`,
    ).parseAsync(['hash-key'], { from: 'user' });
    expect(code).toBe(0);
    expect(out()).toContain(`hash: ${hashApiKey(key)}`);
    await expect(
      authCommand(
        io,
        () => undefined,
        async () => 'short\n',
      ).parseAsync(['hash-key'], { from: 'user' }),
    ).rejects.toThrow(/at least 24/);
  });
});
