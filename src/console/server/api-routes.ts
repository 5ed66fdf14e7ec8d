import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AnswerOf, ConsoleRoute, StreamRoute } from '../api-types.js';
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
 * A route's handler answers with its JSON answer as ConsoleApi declares it (sent with 200), or
 * STREAMED for a stream route, whose response it wrote itself. It throws ApiError for a refusal
 * the page should show.
 */
type ApiHandler<R extends ConsoleRoute> = (ctx: ApiContext) => Promise<R extends StreamRoute ? typeof STREAMED : AnswerOf<R>>;

/** Routes by `"<METHOD> <path under api/>"`, e.g. `"POST call"`, each typed by ConsoleApi (api-types.ts). Each feature module serves some. */
export type ApiRoutes = { [R in ConsoleRoute]?: ApiHandler<R> };

/** Routes beside the console's own (createConsoleApp's `routes`), outside ConsoleApi. */
export type ExtraRoutes = Record<string, (ctx: ApiContext) => Promise<unknown>>;
