// toolwright with the audit trail off (server.audit: false): the floor the trail targets are
// measured against. Server CPU per call of toolwright-jsonl (or -modern) minus this one's is
// what the trail costs per record, in place (each calculate_sum call writes one record).
import { targetArgs } from './common.mjs';
import { buildToolwrightServer, serveTarget } from './toolwright-server.mjs';

const { transport, toolCount } = targetArgs();
const server = buildToolwrightServer(toolCount, { audit: false });
await serveTarget(server, transport);
