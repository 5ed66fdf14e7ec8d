import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fallBackInCommonJs } from '../../src/cli/self-resolve.js';
import { tempDir } from '../helpers/temp.js';

/**
 * The CommonJS fallback that resolves `toolwright` to the running CLI's own package: where that
 * package cannot resolve the name either (a checkout whose dist/ is not built), the answer is
 * the ordinary "cannot find module", not a fallback that calls itself until the stack overflows.
 */
describe('the CommonJS fallback for toolwright', () => {
  it('answers MODULE_NOT_FOUND when the CLI package cannot resolve its own name either', () => {
    const cli = tempDir('tw-self-cli-');
    writeFileSync(join(cli, 'package.json'), JSON.stringify({ name: 'toolwright', exports: { '.': './dist/index.js' } }));
    fallBackInCommonJs(createRequire(join(cli, 'package.json')));
    const lone = tempDir('tw-self-lone-');
    mkdirSync(join(lone, 'src'));
    const requireFromLone = createRequire(join(lone, 'src', 'tools.js'));
    let thrown: unknown;
    try {
      requireFromLone.resolve('toolwright');
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(Error);
    expect((thrown as NodeJS.ErrnoException).code).toBe('MODULE_NOT_FOUND');
  });
});
