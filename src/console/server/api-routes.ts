import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OperatorSources } from '../operator/sources.js';
import type { CallRegistry } from './calls.js';
import type { ConsoleSession } from './session.js';

/** What every API handler is given. */
export interface ApiContext {
  req: IncomingMessage;
  res: ServerResponse;
  /** The request's query string. */
  query: URLSearchParams;
  /** The JSON object body (POST); read on first use, 415/413/400 when it is not one. */
  body(): Promise<Record<string, unknown>>;
  session: ConsoleSession;
  calls: CallRegistry;
  /** What the console runs beside, for the operator panels (`serve --console`); absent standalone. */
  operator?: ConsoleOperator;
}

/**
 * The server the console is served beside (`toolwright serve --console`): the operator panels
 * read its audit trail, rate-limit use and tasks (operatorSources(server)).
 */
export type ConsoleOperator = OperatorSources;

/** Returned by a handler that wrote its own response (a stream). */
export const STREAMED = Symbol('streamed');

/**
 * An API handler answers with a JSON value (sent with 200), or STREAMED when it wrote the
 * response itself. It throws ApiError for a refusal the page should show.
 */
type ApiHandler = (ctx: ApiContext) => Promise<unknown>;

/** Routes by `"<METHOD> <path under api/>"`, e.g. `"POST call"`. Each feature module exports its own. */
export type ApiRoutes = Record<string, ApiHandler>;
