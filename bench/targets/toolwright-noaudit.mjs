// toolwright with the audit trail off (server.audit: false): the floor the trail targets are
// measured against. Server CPU per call of toolwright-jsonl (or -modern) minus this one's is
// what the trail costs per record, in place (each calculate_sum call writes one record).
import { serveHttp, serveStdio } from '../../dist/index.js';
import { exitWhenHarnessGoes, reportPort, targetArgs } from './common.mjs';
import { buildToolwrightServer } from './toolwright-server.mjs';

const { transport, toolCount } = targetArgs();
const server = buildToolwrightServer(toolCount, { audit: false });
if (transport === 'stdio') {
  serveStdio(server);
  exitWhenHarnessGoes({ stdioOwnsInput: true });
} else {
  const handle = await serveHttp(server, { host: '127.0.0.1', port: 0 });
  exitWhenHarnessGoes({ stdioOwnsInput: false });
  reportPort(handle.port);
}
