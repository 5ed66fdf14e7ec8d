import type { RequestStateCodec } from '../inputs/request-state.js';
import type { Stage } from './operation.js';

/** Prepares what the call may ask of the client (Operation.openInputs: a modern retry's answers, opened and checked). */
export function inputsStage(codec: RequestStateCodec): Stage {
  return (call, next) => {
    call.openInputs(codec);
    return next();
  };
}
