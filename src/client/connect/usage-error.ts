/**
 * The user asked for something that cannot be done as asked (a bad server URL, `--header` for a
 * stdio server, an unknown `@name`): the CLI exits 1 with the message, the console answers 400.
 */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
