import type { JsonObject } from './types.js';

export type ParamLocation = 'path' | 'query' | 'header' | 'cookie';

/** One argument that becomes a parameter of the request. */
export interface ParamPlan {
  /** The argument's name in the tool's input (the parameter's own, unless it clashed). */
  arg: string;
  name: string;
  in: ParamLocation;
  style: string;
  explode: boolean;
  /** Sent as JSON text (a parameter described by `content: application/json`). */
  json: boolean;
}

export interface BodyPlan {
  mediaType: 'application/json' | 'application/x-www-form-urlencoded';
  /** The request body's required flag: when false the body is sent only if an argument of it is given. */
  required: boolean;
  /** Body properties spread among the arguments: argument name → property name. */
  spread?: Map<string, string>;
  /** Else the whole body is this one argument. */
  arg?: string;
}

/** One security requirement alternative: scheme name → scopes. */
export type SecurityRequirement = Record<string, string[]>;

/** Everything needed to turn a call's arguments into one HTTP request. */
export interface OperationPlan {
  method: string;
  /** The path template as the document writes it. */
  path: string;
  params: ParamPlan[];
  body?: BodyPlan;
  security: SecurityRequirement[];
}

export interface ToolShape {
  inputSchema: JsonObject;
  outputSchema?: JsonObject;
}
