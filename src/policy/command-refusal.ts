/** A refusal of the command policy the model can act on: it says what is allowed instead. */
export class CommandRefusal extends Error {
  override readonly name = 'CommandRefusal';
}
