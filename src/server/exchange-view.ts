import { authInfoOf, principalOf, type Caller } from '../policy/auth/caller.js';
import type { AuthInfo } from '../policy/auth/principal.js';
import { callerOf, type Exchange } from './exchange.js';

/** What every middleware context says of the exchange its request came on: who calls, over what, from where. */
export abstract class ExchangeView {
  /** @internal */
  abstract readonly exchange: Exchange;

  get caller(): Caller {
    return callerOf(this.exchange);
  }

  get principal(): string | undefined {
    return principalOf(callerOf(this.exchange));
  }

  get auth(): AuthInfo | undefined {
    return authInfoOf(callerOf(this.exchange));
  }

  get transport(): string {
    return this.exchange.peer.transport;
  }

  get headers(): Readonly<Record<string, string | string[] | undefined>> | undefined {
    return this.exchange.headers;
  }

  get remoteAddress(): string | undefined {
    return this.exchange.remoteAddress;
  }

  get remotePort(): number | undefined {
    return this.exchange.remotePort;
  }
}
