/**
 * Thrown by `requireClientCapability` and by a question the client cannot answer;
 * the pipeline turns it into the era's answer. Below the call context and the
 * call's inputs, which both throw it.
 */
export class MissingClientCapability extends Error {
  constructor(readonly capability: string) {
    super(`the client did not declare the "${capability}" capability`);
  }
}
