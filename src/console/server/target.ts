import type { ClientTransport } from '../../client/transport.js';
import type { ClientCommandOptions } from '../../client/connect/target.js';
import type { ConnectRequest } from '../api-types.js';

/** How the console reaches the server it shows: a request from the page, or a client it is given. */
export type ConsoleTarget =
  | { kind: 'request'; request: ConnectRequest }
  /** What `toolwright console` was given: a URL or `@name` operand, or a command after `--`, and its client options. */
  | { kind: 'command-line'; operand?: string; command: string[]; options: ClientCommandOptions }
  /** A transport of the caller's making: `serve --console` reaches its own server in process. */
  | { kind: 'transport'; label: string; transport: () => ClientTransport };
