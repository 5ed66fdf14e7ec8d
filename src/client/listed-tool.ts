// A listed tool's shape: a plain type with no imports, so the console's front end (src/console/ui,
// browser code) shares it with the client.

/** A tool definition as the server listed it, after the client checked it. */
export interface ListedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
  icons?: Array<{ src: string; mimeType?: string; sizes?: string[]; theme?: string }>;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}
