// toolwright target: one ToolServer serving both eras (the client picks the era).
import { serveHttp, serveStdio } from '../../dist/index.js';
import { exitWhenHarnessGoes, reportPort, targetArgs } from './common.mjs';
import { buildToolwrightServer } from './toolwright-server.mjs';

const { transport, toolCount } = targetArgs();
const server = buildToolwrightServer(toolCount);

if (transport === 'stdio') {
  serveStdio(server);
  exitWhenHarnessGoes({ stdioOwnsInput: true });
} else {
  const handle = await serveHttp(server, { host: '127.0.0.1', port: 0 });
  exitWhenHarnessGoes({ stdioOwnsInput: false });
  reportPort(handle.port);
}
