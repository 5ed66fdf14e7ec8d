import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { onTestFinished } from 'vitest';
import { TestNginx } from './nginx.js';
import { startHttpServe } from './serve-process.js';
import { tempDir } from './temp.js';

/** The scale-out tests' tools (test/fixtures/scale-out/tools.mjs). */
export const scaleOutTools = fileURLToPath(new URL('../fixtures/scale-out/tools.mjs', import.meta.url));

export type ServeInstance = Awaited<ReturnType<typeof startHttpServe>>;

/**
 * Three `toolwright serve --http` instances of one config (`server` is its server part) behind a
 * real nginx (round-robin, no affinity), as examples/scale-out/ runs them (docs/deployment.md).
 * nginx is stopped, and the instances killed, when the test finishes.
 */
export async function startCluster(server: Record<string, unknown>, count = 3) {
  const cwd = tempDir('tw-scale-out-');
  // One requestStateSecret for all, as shared state requires (docs/scale-out.md); a test may give its own.
  const config = { tools: [scaleOutTools], server: { requestStateSecret: `scale-out-${process.pid}`, ...server } };
  writeFileSync(join(cwd, 'toolwright.config.json'), JSON.stringify(config));
  // Started side by side: each start mostly waits (its own start-up, Redis, the port).
  const instances: ServeInstance[] = await Promise.all(
    Array.from({ length: count }, () => startHttpServe(['--config', 'toolwright.config.json'], { cwd, env: { TOOLWRIGHT_AUDIT_DIR: '' } })),
  );
  const nginx = await TestNginx.create(instances.map((s) => Number(new URL(s.url).port)));
  onTestFinished(() => nginx.destroy());
  return { cwd, instances, nginx };
}
