import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * Issue 25: the console's front end is prebuilt into the package (dist/console/, by
 * `npm run build`), loads nothing from elsewhere, and stays small. Its first paint is measured
 * by `npm run bench:console`, not here (tests never time).
 */
const dir = new URL('../../dist/console/', import.meta.url);
const BUDGET_GZIP_BYTES = 150 * 1024;

describe('the console bundle', () => {
  it('is built into dist/console with its sizes, under its budget', () => {
    for (const file of ['index.html', 'app.js', 'app.css', 'sizes.json']) expect(existsSync(new URL(file, dir)), file).toBe(true);
    const sizes = JSON.parse(readFileSync(new URL('sizes.json', dir), 'utf8')) as Record<string, { bytes: number; gzip: number }>;
    const total = Object.values(sizes).reduce((sum, s) => sum + s.gzip, 0);
    expect(total).toBeLessThan(BUDGET_GZIP_BYTES);
  });

  it('references nothing outside the package: no URL to another host in the page or its code', () => {
    const html = readFileSync(new URL('index.html', dir), 'utf8');
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    const js = readFileSync(new URL('app.js', dir), 'utf8');
    // No dynamic import or script from a CDN.
    expect(js).not.toMatch(/import\(\s*["']https?:/);
    expect(js).not.toMatch(/cdn\.jsdelivr|unpkg\.com|cdnjs/);
  });

  it('is published: package.json files include dist', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { files: string[] };
    expect(pkg.files).toContain('dist');
  });
});
