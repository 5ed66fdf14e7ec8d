import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeBlocks } from '../helpers/markdown-blocks.js';

/**
 * The README and docs/ link to each other by file and heading, and source comments cite the docs
 * (issue 22): a section renamed or moved must not leave a link or a comment pointing at nothing.
 */
const root = join(import.meta.dirname, '../..');
const documents = [
  'README.md',
  'CONTRIBUTING.md',
  'SECURITY.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2, … */
function headingAnchors(markdown: string): Set<string> {
  const inCode = new Set(codeBlocks(markdown).flatMap((b) => Array.from({ length: b.code.split('\n').length }, (_, i) => b.line + i)));
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  markdown.split('\n').forEach((line, i) => {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m || inCode.has(i + 1)) return;
    const slug = m[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  });
  return anchors;
}

const read = (file: string) => readFileSync(join(root, file), 'utf8');

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'results' ? [] : sourceFiles(path);
    return /\.(ts|mts|mjs|js|json)$/.test(entry.name) ? [path] : [];
  });
}

describe('links between the documents', () => {
  it('name files that exist and headings they have', () => {
    const problems: string[] = [];
    for (const doc of documents) {
      const text = read(doc);
      const inCode = new Set(codeBlocks(text).flatMap((b) => Array.from({ length: b.code.split('\n').length }, (_, i) => b.line + i)));
      text.split('\n').forEach((line, i) => {
        if (inCode.has(i + 1)) return;
        for (const m of line.matchAll(/\]\(([^)\s]+)\)/g)) {
          const target = m[1]!;
          if (/^[a-z]+:/i.test(target)) continue; // https:, mailto:
          const [path, anchor] = target.split('#') as [string, string | undefined];
          const file = path === '' ? doc : relative(root, normalize(join(root, dirname(doc), path)));
          if (!existsSync(join(root, file))) {
            problems.push(`${doc}:${i + 1}: ${target}: no file ${file}`);
            continue;
          }
          if (anchor && file.endsWith('.md') && !headingAnchors(read(file)).has(anchor))
            problems.push(`${doc}:${i + 1}: ${target}: ${file} has no heading #${anchor}`);
        }
      });
    }
    expect(problems).toEqual([]);
  });

  it('computes anchors as GitHub does', () => {
    expect(headingAnchors('## The way of one `tools/call`\n### Shutting down, and errors nobody handled\n## A\n## A\n```\n# not a heading\n```\n')).toEqual(
      new Set(['the-way-of-one-toolscall', 'shutting-down-and-errors-nobody-handled', 'a', 'a-1']),
    );
  });
});

describe('what the sources cite', () => {
  const files = ['src', 'test', 'scripts', 'bench', 'examples', 'schema'].flatMap(sourceFiles).filter((f) => f !== 'test/docs/links.test.ts');

  it('is never a design document outside the repository', () => {
    const citing = files.filter((f) => /DESIGN\.md/.test(read(f)));
    expect(citing).toEqual([]);
  });

  it('is a document of docs/ that exists, at a heading or a phrase it has', () => {
    const problems: string[] = [];
    let cited = 0;
    for (const file of files) {
      read(file)
        .split('\n')
        .forEach((line, i) => {
          for (const m of line.matchAll(/docs\/([a-z-]+\.md)(?:#([\w-]+)|,\s*\\?"([^"\\]+)\\?")?/g)) {
            const doc = `docs/${m[1]}`;
            if (!existsSync(join(root, doc))) continue; // a file a test writes into a temporary docs/ folder
            cited++;
            if (m[2] && !headingAnchors(read(doc)).has(m[2])) problems.push(`${file}:${i + 1}: ${doc} has no heading #${m[2]}`);
            if (m[3] && !read(doc).includes(m[3])) problems.push(`${file}:${i + 1}: ${doc} does not say "${m[3]}"`);
          }
        });
    }
    expect(problems).toEqual([]);
    expect(cited).toBeGreaterThan(10);
  });
});
