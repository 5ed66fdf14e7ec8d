import type { ClientCapabilities } from '../../protocol/meta.js';
import { InputResponder } from './responder.js';
import { INPUT_CAPABILITIES, type InputCapability, type InputRequestHandler } from './types.js';

/** What a request brings of its own to answer a server's questions (tools/call, prompts/get, resources/read). */
export interface OwnInputs {
  onInputRequest?: InputRequestHandler;
  inputCapabilities?: readonly InputCapability[];
}

/**
 * Who answers one request's questions, and within which capabilities: its own handler instead of
 * the client's, within the capabilities declared at connect, narrowed to what the request keeps
 * (`capabilities` is set only when it narrows them).
 */
export function inputsForRequest(
  declared: ClientCapabilities | undefined,
  clientInputs: InputResponder | undefined,
  own: OwnInputs,
): { inputs: InputResponder | undefined; capabilities?: ClientCapabilities } {
  const capabilities = own.inputCapabilities ? narrowInputs(declared ?? {}, own.inputCapabilities) : undefined;
  const inputs = own.onInputRequest ? new InputResponder(own.onInputRequest, capabilities ?? declared ?? {}) : clientInputs;
  return capabilities ? { inputs, capabilities } : { inputs };
}

/** The declared capabilities without the input capabilities a request leaves out. */
function narrowInputs(declared: ClientCapabilities, keep: readonly InputCapability[]): ClientCapabilities {
  const narrowed: ClientCapabilities = { ...declared };
  for (const capability of INPUT_CAPABILITIES) if (!keep.includes(capability)) delete narrowed[capability];
  return narrowed;
}
