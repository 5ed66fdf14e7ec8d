// toolwright target: one ToolServer serving both eras (the client picks the era).
import { targetArgs } from './common.mjs';
import { buildToolwrightServer, serveTarget } from './toolwright-server.mjs';

const { transport, toolCount } = targetArgs();
const server = buildToolwrightServer(toolCount);

await serveTarget(server, transport);
