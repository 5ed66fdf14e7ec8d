import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { extensionFor } from '../file-extensions.js';

/**
 * Where a session saves images, audio and blobs: a folder of the session's
 * own (a fresh private temp dir unless --output-dir names one), and file
 * names it makes itself from a counter and the MIME type, never from
 * anything the server chose (no path from a server reaches the disk).
 */
export class SavedFiles {
  private dir?: string;
  private count = 0;

  constructor(private readonly chosenDir?: string) {}

  save(base64: string, mimeType: string | undefined, label: string): string {
    const dir = this.folder();
    const ext = (extensionFor(mimeType) ?? '.bin').slice(1);
    const stem = label.replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, 40) || 'content';
    const bytes = Buffer.from(base64, 'base64');
    for (;;) {
      const file = join(dir, `${++this.count}-${stem}.${ext}`);
      try {
        // Owner-only (a result may be private), and never over a file already there.
        writeFileSync(file, bytes, { mode: 0o600, flag: 'wx' });
        return file;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || this.count > 100_000) throw err;
      }
    }
  }

  private folder(): string {
    if (this.dir) return this.dir;
    if (this.chosenDir) {
      mkdirSync(this.chosenDir, { recursive: true, mode: 0o700 });
      this.dir = resolve(this.chosenDir);
    } else {
      this.dir = mkdtempSync(join(tmpdir(), 'toolwright-connect-'));
    }
    return this.dir;
  }
}
