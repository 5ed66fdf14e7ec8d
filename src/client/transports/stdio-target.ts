// A type only, so that the runtime-neutral core can name the stdio target without the Node transport that starts it.

/** How to start a stdio server. */
export interface StdioTarget {
  command: string;
  args?: string[];
  /** Added to the environment the server starts with. */
  env?: Record<string, string>;
  /**
   * Pass the whole environment of this process to the server. Off by default:
   * the server then gets only a few safe variables (PATH, HOME, …) plus `env`,
   * so secrets in this process do not leak into every server it starts.
   */
  inheritEnv?: boolean;
  cwd?: string;
  /** The server's stderr: shown on ours ('inherit', default), dropped, or kept for errors ('capture'). */
  stderr?: 'inherit' | 'ignore' | 'capture';
  /** Receives the server's stderr text when `stderr` is 'capture'. */
  onStderr?: (text: string) => void;
  /**
   * Reads each line of the server's stderr (when `stderr` is 'capture') for a sign that it is
   * not speaking stdio at all, such as a line announcing the HTTP URL it serves: a message
   * returned fails the connection with it at once (a ConnectionError, reason 'wrong-transport')
   * and stops the server, instead of waiting for answers that will never come on its stdout.
   */
  detectWrongTransport?: (line: string) => string | undefined;
  /**
   * Start the server in a process group of its own (POSIX; ignored on
   * Windows), so the Ctrl-C a person presses at the terminal reaches only
   * this process, which cancels its requests, and not the server too.
   */
  ownProcessGroup?: boolean;
}
