// toolwright with the default trail of an install without better-sqlite3: JSON lines with group
// commit (JsonlTrailSink, fdatasync'd before the answers), in the harness's fresh
// $TOOLWRIGHT_AUDIT_DIR. The checkout has better-sqlite3, so toolwright.mjs's default is SQLite:
// this is the trail a consumer's `npm install toolwright` gets (issue 33: stdio ≥ 0.7× raw).
import { JsonlTrailSink } from '../../dist/index.js';
import { targetArgs } from './common.mjs';
import { buildToolwrightServer, serveTarget } from './toolwright-server.mjs';

const { transport, toolCount } = targetArgs();
const server = buildToolwrightServer(toolCount, { audit: new JsonlTrailSink(`${process.env.TOOLWRIGHT_AUDIT_DIR}/audit.jsonl`) });
await serveTarget(server, transport);
