import { readFileSync } from 'node:fs';
import { packageFile } from '../../runtime/package-files.js';

/** One prebuilt file of the console's front end, held in memory (they are small). */
interface ConsoleAsset {
  body: Buffer;
  type: string;
}

const FILES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
};

let loaded: Map<string, ConsoleAsset> | undefined;

/**
 * The front end as `npm run build` left it in dist/console/ (scripts/bundle-console.mjs).
 * Read once; a missing build is said plainly instead of serving an empty page.
 */
export function consoleAssets(): Map<string, ConsoleAsset> {
  if (loaded) return loaded;
  const assets = new Map<string, ConsoleAsset>();
  for (const [name, type] of Object.entries(FILES)) {
    let body: Buffer;
    try {
      body = readFileSync(packageFile('dist', 'console', name));
    } catch {
      throw new Error(`the console's front end is not built (dist/console/${name} is missing): run npm run build`);
    }
    assets.set(name, { body, type });
  }
  loaded = assets;
  return assets;
}
