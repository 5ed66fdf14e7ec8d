import { ErrorCode, RpcError } from '../../jsonrpc/errors.js';
import { isPlainObject } from '../../protocol/content.js';
import type { RequestStateCodec } from '../inputs/request-state.js';
import type { Stage } from './call.js';

/**
 * Prepares what the call may ask of the client. On a modern retry it checks
 * `inputResponses` and opens the signed `requestState`: forged, expired or
 * borrowed state is refused with -32602 (mrtr.mdx "Server Requirements").
 */
export function inputsStage(codec: RequestStateCodec): Stage {
  return (call, next) => {
    call.stateCodec = codec;
    if (call.info.era === 'modern') {
      const { inputResponses, requestState } = call.params;
      if (inputResponses !== undefined && !isPlainObject(inputResponses)) {
        throw new RpcError(ErrorCode.InvalidParams, 'Invalid params: inputResponses must be an object');
      }
      if (requestState !== undefined || inputResponses !== undefined) {
        const earlier = requestState === undefined ? {} : codec.open(requestState, call.stateBinding);
        call.answers = { ...earlier, ...(inputResponses ?? {}) };
      }
    }
    return next();
  };
}
