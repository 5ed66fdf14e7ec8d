import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { unclosedFence } from '../helpers/markdown-fences.js';

const root = join(import.meta.dirname, '../..');

describe('Markdown code fences', () => {
  it('every tracked Markdown file closes every code fence it opens', () => {
    const files = execFileSync('git', ['ls-files', '-z', '--', '*.md'], { cwd: root, encoding: 'utf8' })
      .split('\0')
      .filter((file) => file !== '' && !file.split('/').includes('node_modules'));
    expect(files).toContain('README.md');
    expect(files).toContain('docs/architecture.md'); // the docs/ the README links to are walked too
    const unclosed = files.flatMap((file) => {
      const open = unclosedFence(readFileSync(join(root, file), 'utf8'));
      return open ? [`${file}:${open.line}: the code fence ${open.fence} is never closed (everything after it renders as code)`] : [];
    });
    expect(unclosed).toEqual([]);
  });
});

describe('unclosedFence', () => {
  it('pairs backtick and tilde fences, with info strings', () => {
    expect(unclosedFence('text\n```sh\nls\n```\n~~~ts\nconst a = 1;\n~~~\n')).toBeUndefined();
  });

  it('names the line of a fence left open', () => {
    expect(unclosedFence('# Title\n\n```\ncode\n```\n\nmore\n```\nstray\n')).toEqual({ line: 8, fence: '```' });
  });

  it('closes only on the same character, at least as long, with nothing after it', () => {
    expect(unclosedFence('````\n```\n````\n')).toBeUndefined(); // a shorter run is content
    expect(unclosedFence('~~~\n```\n~~~~~\n')).toBeUndefined(); // the other character is content; a longer run closes
    expect(unclosedFence('```\n``` not a closer\n')).toEqual({ line: 1, fence: '```' });
    expect(unclosedFence('~~~\n```\n')).toEqual({ line: 1, fence: '~~~' });
  });

  it('counts fences in list items and block quotes, and knows an inline code span is not a fence', () => {
    expect(unclosedFence('- item\n\n  ```js\n  x\n  ```\n> ```\n> quoted\n> ```\n')).toBeUndefined();
    expect(unclosedFence('``` `inline` ```\n')).toBeUndefined();
    expect(unclosedFence('text\r\n```\r\ncode\r\n')).toEqual({ line: 2, fence: '```' });
  });
});
