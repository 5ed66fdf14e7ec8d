import { execFile } from 'node:child_process';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { codeBlocks } from '../../helpers/markdown-blocks.js';
import { FIXTURES, TempDocs } from './helpers.js';
import { PetstoreApi, SECRETS } from './petstore-api.js';

/**
 * docs/openapi.md's code example, run as written (its `toolwright` import pointed at the
 * sources) in a child process against the local Petstore, then one call through its server.
 */
const root = join(import.meta.dirname, '../../..');
const docs = new TempDocs();
let api: PetstoreApi;

beforeAll(async () => {
  api = await new PetstoreApi().start();
});

afterAll(async () => {
  await api?.close();
  docs.cleanup();
});

it('serves the Petstore as the docs say, prefixed, filtered, with the API key from the environment', async () => {
  const page = readFileSync(join(root, 'docs/openapi.md'), 'utf8');
  const block = codeBlocks(page).find((b) => b.info[0] === 'ts' && b.code.includes('openApiTools('));
  expect(block).toBeDefined();
  const src = (file: string) => pathToFileURL(join(root, 'src', file)).href;
  const importLine = "import { ToolServer } from 'toolwright';\nimport { openApiTools } from 'toolwright/gateway';";
  expect(block?.code).toContain(importLine);
  const program = [
    block?.code.replace(importLine, `import { ToolServer } from '${src('index.ts')}';\nimport { openApiTools } from '${src('gateway/openapi/index.ts')}';`),
    `const { createInMemoryPair } = await import('${src('testing.ts')}');`,
    'const pair = await createInMemoryPair(server);',
    'const listed = (await pair.client.listTools()).map((t) => t.name).sort();',
    "const pet = await pair.client.callTool('petstore_getPetById', { petId: 1 });",
    'console.log(JSON.stringify({ listed, pet: pet.structuredContent }));',
    'await pair.close();',
  ].join('\n');
  writeFileSync(join(docs.dir, 'example.ts'), program);
  writeFileSync(join(docs.dir, 'package.json'), '{ "type": "module" }\n');
  copyFileSync(join(FIXTURES, 'petstore.yaml'), join(docs.dir, 'petstore.yaml'));
  const { stdout, stderr } = await promisify(execFile)(
    process.execPath,
    ['--import', pathToFileURL(join(root, 'node_modules/tsx/dist/loader.mjs')).href, 'example.ts'],
    {
      cwd: docs.dir,
      env: { ...process.env, PETSTORE_URL: api.url, PETSTORE_API_KEY: SECRETS.apiKey },
      timeout: 60_000,
    },
  );
  const out = JSON.parse(stdout.trim().split('\n').at(-1) ?? '');
  expect(out.listed).toEqual([
    'petstore_addPet',
    'petstore_findPetsByStatus',
    'petstore_findPetsByTags',
    'petstore_getInventory',
    'petstore_getOrderById',
    'petstore_getPetById',
    'petstore_placeOrder',
    'petstore_updatePet',
    'petstore_updatePetWithForm',
  ]);
  expect(out.pet).toMatchObject({ id: 1, name: 'Rex' });
  expect(stderr).toContain('petstore: skipped POST /pet/{petId}/uploadImage (uploadFile)');
  expect(api.received.at(-1)?.headers.api_key).toBe(SECRETS.apiKey);
}, 90_000);
