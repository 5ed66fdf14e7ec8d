// Import-free: the console's page (DOM-only types) names it too.

/** One upstream as the health resource gives it (every field checked: it comes from the server). */
export interface ReportedUpstream {
  name: string;
  kind: string;
  state: string;
  tools: number;
  prompts: number;
  resources: number;
  restarts: number;
  lastError?: string;
  retryInMs?: number;
}
