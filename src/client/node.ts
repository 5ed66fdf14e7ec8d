import { installStdioStarter } from './open-transport.js';
import { StdioClientTransport } from './transports/stdio-client.js';

/**
 * The client's Node-only part (as vscode-jsonrpc's `node` beside `common`):
 * stdio servers, the loopback redirect for a person's sign-in, tokens in
 * files. Importing it lets `ToolClient` start `{ command }` targets.
 */
installStdioStarter((target, options) => StdioClientTransport.start(target, options));

export { StdioClientTransport, type StdioTransportOptions } from './transports/stdio-client.js';
export { FileTokenStore, defaultConfigDir } from './auth/file-token-store.js';
export { LoopbackRedirect, openBrowser, type LoopbackOptions } from './auth/loopback.js';
export { diagnoseConnection, type DoctorOptions, type DoctorReport, type DoctorStep } from './doctor/index.js';
