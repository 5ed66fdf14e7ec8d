import { isPlainObject } from '../../protocol/content.js';
import type { ClientCapabilities } from '../../protocol/meta.js';
import { CAPABILITY_FOR, INPUT_CAPABILITIES, type InputCapability, type InputRequestMethod } from './types.js';

/**
 * The capabilities the client declares. Input capabilities follow the handler:
 * without `onInputRequest` none is declared (the client could not answer, and
 * a declared capability invites the server to ask); with it, the ones in
 * `inputCapabilities` (default all three). An object given in `capabilities`
 * for a declared one refines it (e.g. `elicitation: { form: {}, url: {} }`,
 * `sampling: { tools: {} }`); otherwise `{}` is declared, which means form-mode
 * elicitation, plain sampling and roots without list-change notifications.
 */
export function declareCapabilities(
  base: ClientCapabilities,
  hasHandler: boolean,
  chosen: readonly InputCapability[] | undefined,
  warn: (message: string) => void,
): ClientCapabilities {
  const declared: ClientCapabilities = { ...base };
  const wanted = new Set(hasHandler ? (chosen ?? INPUT_CAPABILITIES) : []);
  for (const name of INPUT_CAPABILITIES) {
    if (wanted.has(name)) {
      declared[name] = isPlainObject(base[name]) ? base[name] : {};
    } else if (base[name] !== undefined) {
      warn(`not declaring the "${name}" capability: ${hasHandler ? 'it is not in inputCapabilities' : 'there is no onInputRequest handler to answer it'}`);
      delete declared[name];
    }
  }
  return declared;
}

/**
 * Why this client cannot take the question, if it cannot: its method or mode
 * was never declared. Servers MUST NOT send such questions (mrtr.mdx; a client
 * that declares `elicitation: {}` supports form mode only, elicitation.mdx
 * "Capabilities"; tool-enabled sampling needs `sampling.tools`, sampling.mdx).
 */
export function undeclaredReason(method: InputRequestMethod, params: Record<string, unknown>, capabilities: ClientCapabilities): string | undefined {
  const capability = CAPABILITY_FOR[method];
  const declared = capabilities[capability];
  if (declared === undefined) return `the client did not declare the "${capability}" capability`;
  if (method === 'elicitation/create') {
    const mode = params.mode ?? 'form';
    const modes = isPlainObject(declared) ? declared : {};
    // An empty elicitation object is the older spelling of "form only".
    const supports = (m: string) => modes[m] !== undefined || (m === 'form' && Object.keys(modes).length === 0);
    if (mode !== 'form' && mode !== 'url') return `unknown elicitation mode ${JSON.stringify(String(mode).slice(0, 40))}`;
    if (!supports(mode)) return `the client did not declare ${mode}-mode elicitation`;
  }
  if (method === 'sampling/createMessage' && params.tools !== undefined && !(isPlainObject(declared) && declared.tools !== undefined)) {
    return 'the request uses tools, but the client did not declare "sampling.tools"';
  }
  return undefined;
}
