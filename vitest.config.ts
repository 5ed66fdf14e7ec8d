import { defineConfig } from 'vitest/config';

/** HTTP tests that hold on both faces of the endpoint (startHttp serves the face of the project). */
const FETCH_FACE_FILES = [
  'test/transports/http-auth.test.ts',
  'test/transports/http-auth-throttle.test.ts',
  'test/transports/http-caller.test.ts',
  'test/transports/http-client-responses.test.ts',
  'test/transports/http-oauth.test.ts',
  'test/transports/http-primitive-scopes.test.ts',
  'test/transports/http-scopes.test.ts',
  'test/transports/http-server.test.ts',
  'test/transports/http-shared-sessions.test.ts',
  'test/transports/http-stream-limits.test.ts',
  'test/transports/http-subscriptions.test.ts',
  'test/transports/http-token-hygiene.test.ts',
  'test/transports/invalid-utf8.test.ts',
];

/** What the fetch-face project shares with the root (below). */
const SHARED = {
  testTimeout: 20_000,
  hookTimeout: 20_000,
  pool: 'forks' as const,
  isolate: false,
  globalSetup: ['test/helpers/global-setup.ts'],
};

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // Two cores: real child processes and servers in tests need room to breathe.
    maxWorkers: 2,
    // Each worker keeps the modules it has loaded from one test file to the next instead of
    // loading src/ again for every file: that loading was a quarter of the suite's CPU (142 s of
    // 536 s on two quiet cores; 20 s without it, the whole run 371 s). Test files leave no global
    // state behind them: environment variables, the working directory and the OpenTelemetry
    // globals are restored by the tests that change them (test/helpers/otel.ts).
    isolate: false,
    // Sets $TOOLWRIGHT_AUDIT_DIR to a temp dir for the run, and removes it after.
    globalSetup: ['test/helpers/global-setup.ts'],
    // The HTTP endpoint has two faces: Node's req/res (serveHttp, http-node.ts) and the
    // web-standard fetch face (http-fetch.ts). Every test runs on the Node face; the HTTP files
    // whose behaviour does not depend on the face run once more on the fetch face (startHttp in
    // test/helpers/http.ts picks it). What only one face has (connection caps and deadlines of
    // node:http, routes beside MCP) is tested where that face is.
    projects: [
      { extends: true, test: { name: 'node' } },
      // Not `extends: true`: that would add these files to the root's include (arrays merge), not replace it.
      { test: { ...SHARED, name: 'fetch-face', include: FETCH_FACE_FILES, provide: { httpFace: 'fetch' } } },
    ],
  },
});
