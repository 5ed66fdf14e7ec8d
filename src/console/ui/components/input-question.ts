/** A question from the server (`elicitation/create`, `sampling/createMessage`), as the console's call stream carries it. */
export interface InputQuestion {
  id: string;
  method: string;
  params: Record<string, unknown>;
  toolName?: string;
}
