/**
 * A failure the model can act on: its message becomes the text of an
 * `isError: true` result. Anything else a handler throws is reported
 * generically, with the detail kept in the server log.
 */
export class ToolError extends Error {
  constructor(
    message: string,
    readonly structuredContent?: unknown,
  ) {
    super(message);
    this.name = 'ToolError';
  }
}
