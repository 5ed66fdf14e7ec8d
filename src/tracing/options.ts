/** What the tracing middleware records beyond the conventions' defaults. */
export interface TracingOptions {
  /**
   * Record `tools/call` arguments as `gen_ai.tool.call.arguments` (JSON).
   * Off by default: arguments may carry personal data or secrets, and they
   * leave the process with every exported span.
   */
  recordArguments?: boolean;
  /** Record a successful `tools/call` result as `gen_ai.tool.call.result` (JSON). Off by default, for the same reason. */
  recordResults?: boolean;
  /** Longest recorded argument or result JSON, in characters (longer is cut, marked with …). Default 8192. */
  maxRecordedChars?: number;
}

export const DEFAULT_MAX_RECORDED_CHARS = 8192;
