/**
 * A small arithmetic language, parsed by precedence climbing and evaluated
 * as it is parsed: numbers, + - * / % ^ (right-associative), unary signs,
 * parentheses, a fixed set of functions and constants. Nothing reaches
 * `eval`, and the size and nesting of an expression are bounded.
 */
export class ExpressionError extends Error {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(message);
    this.name = 'ExpressionError';
  }
}

export const LIMITS = { maxLength: 1_000, maxDepth: 50 };

// Maps, not object literals: names such as "constructor" must not find Object.prototype.
const FUNCTIONS = new Map<string, { arity: [number, number]; fn: (...args: number[]) => number }>(
  Object.entries({
    sqrt: { arity: [1, 1], fn: Math.sqrt },
    cbrt: { arity: [1, 1], fn: Math.cbrt },
    abs: { arity: [1, 1], fn: Math.abs },
    exp: { arity: [1, 1], fn: Math.exp },
    ln: { arity: [1, 1], fn: Math.log },
    log: { arity: [1, 2], fn: (x, base) => (base === undefined ? Math.log10(x) : Math.log(x) / Math.log(base)) },
    sin: { arity: [1, 1], fn: Math.sin },
    cos: { arity: [1, 1], fn: Math.cos },
    tan: { arity: [1, 1], fn: Math.tan },
    asin: { arity: [1, 1], fn: Math.asin },
    acos: { arity: [1, 1], fn: Math.acos },
    atan: { arity: [1, 1], fn: Math.atan },
    floor: { arity: [1, 1], fn: Math.floor },
    ceil: { arity: [1, 1], fn: Math.ceil },
    round: { arity: [1, 2], fn: (x, digits = 0) => Math.round(x * 10 ** digits) / 10 ** digits },
    min: { arity: [1, 100], fn: Math.min },
    max: { arity: [1, 100], fn: Math.max },
    pow: { arity: [2, 2], fn: Math.pow },
  } as Record<string, { arity: [number, number]; fn: (...args: number[]) => number }>),
);
const CONSTANTS = new Map<string, number>([
  ['pi', Math.PI],
  ['e', Math.E],
  ['tau', 2 * Math.PI],
]);

type Token =
  | { kind: 'number'; value: number; at: number }
  | { kind: 'name'; value: string; at: number }
  | { kind: 'op'; value: string; at: number }
  | { kind: 'end'; at: number };

const BINARY: Record<string, { precedence: number; right: boolean }> = {
  '+': { precedence: 1, right: false },
  '-': { precedence: 1, right: false },
  '*': { precedence: 2, right: false },
  '/': { precedence: 2, right: false },
  '%': { precedence: 2, right: false },
  '^': { precedence: 4, right: true },
};
const UNARY_PRECEDENCE = 3; // -2^2 = -(2^2), as in mathematics

export function evaluate(source: string): number {
  if (source.length > LIMITS.maxLength) throw new ExpressionError(`the expression is longer than ${LIMITS.maxLength} characters`, LIMITS.maxLength);
  const tokens = tokenize(source);
  let i = 0;
  const peek = () => tokens[i];
  const take = () => tokens[i++];

  const parseExpression = (minPrecedence: number, depth: number): number => {
    if (depth > LIMITS.maxDepth) throw new ExpressionError(`the expression nests deeper than ${LIMITS.maxDepth} levels`, peek().at);
    let left = parseUnary(depth);
    for (;;) {
      const token = peek();
      if (token.kind !== 'op' || !(token.value in BINARY)) return left;
      const { precedence, right } = BINARY[token.value];
      if (precedence < minPrecedence) return left;
      take();
      const rhs = parseExpression(right ? precedence : precedence + 1, depth + 1);
      left = apply(token.value, left, rhs, token.at);
    }
  };

  const parseUnary = (depth: number): number => {
    const token = peek();
    if (token.kind === 'op' && (token.value === '-' || token.value === '+')) {
      take();
      const operand = parseExpression(UNARY_PRECEDENCE, depth + 1);
      return token.value === '-' ? -operand : operand;
    }
    return parsePrimary(depth);
  };

  const parsePrimary = (depth: number): number => {
    const token = take();
    if (token.kind === 'number') return token.value;
    if (token.kind === 'op' && token.value === '(') {
      const value = parseExpression(0, depth + 1);
      expect(')', 'a closing ")"');
      return value;
    }
    if (token.kind === 'name') {
      const name = token.value.toLowerCase();
      if (peek().kind === 'op' && (peek() as { value: string }).value === '(') return call(name, token.at, depth);
      const constant = CONSTANTS.get(name);
      if (constant !== undefined) return constant;
      throw new ExpressionError(`unknown name "${token.value}"; constants are ${[...CONSTANTS.keys()].join(', ')}`, token.at);
    }
    throw new ExpressionError(token.kind === 'end' ? 'the expression ends too early' : `unexpected "${(token as { value: string }).value}"`, token.at);
  };

  const call = (name: string, at: number, depth: number): number => {
    const spec = FUNCTIONS.get(name);
    if (!spec) throw new ExpressionError(`unknown function "${name}"; available: ${[...FUNCTIONS.keys()].join(', ')}`, at);
    take(); // "("
    const args: number[] = [];
    if (!(peek().kind === 'op' && (peek() as { value: string }).value === ')')) {
      do args.push(parseExpression(0, depth + 1));
      while (peek().kind === 'op' && (peek() as { value: string }).value === ',' && take());
    }
    expect(')', `")" to close ${name}(`);
    const [lo, hi] = spec.arity;
    if (args.length < lo || args.length > hi) {
      throw new ExpressionError(`${name} takes ${lo === hi ? lo : `${lo} to ${hi}`} argument${hi === 1 ? '' : 's'}, got ${args.length}`, at);
    }
    return spec.fn(...args);
  };

  const expect = (op: string, what: string) => {
    const token = take();
    if (token.kind !== 'op' || token.value !== op) throw new ExpressionError(`expected ${what}`, token.at);
  };

  const value = parseExpression(0, 0);
  const rest = peek();
  if (rest.kind !== 'end') throw new ExpressionError(`unexpected "${(rest as { value: string }).value}" after a complete expression`, rest.at);
  if (!Number.isFinite(value))
    throw new ExpressionError(Number.isNaN(value) ? 'the result is not a number (e.g. the square root of a negative number)' : 'the result is too large', 0);
  return value;
}

function apply(op: string, a: number, b: number, at: number): number {
  switch (op) {
    case '+':
      return a + b;
    case '-':
      return a - b;
    case '*':
      return a * b;
    case '/':
      if (b === 0) throw new ExpressionError('division by zero', at);
      return a / b;
    case '%':
      if (b === 0) throw new ExpressionError('modulo by zero', at);
      return a % b;
    default:
      return a ** b;
  }
}

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  const re = /\s*(?:(\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)|([A-Za-z_][A-Za-z_0-9]*)|(\*\*|[-+*/%^(),]))/y;
  let at = 0;
  while (at < source.length) {
    if (/^\s*$/.test(source.slice(at))) break;
    re.lastIndex = at;
    const m = re.exec(source);
    if (!m) {
      const bad = source.slice(at).trimStart()[0];
      throw new ExpressionError(`unexpected character "${bad}"`, source.length - source.slice(at).trimStart().length);
    }
    const start = m.index + m[0].length - (m[1] ?? m[2] ?? m[3]).length;
    if (m[1] !== undefined) tokens.push({ kind: 'number', value: Number(m[1]), at: start });
    else if (m[2] !== undefined) tokens.push({ kind: 'name', value: m[2], at: start });
    else tokens.push({ kind: 'op', value: m[3] === '**' ? '^' : m[3], at: start });
    at = re.lastIndex;
  }
  tokens.push({ kind: 'end', at: source.length });
  return tokens;
}
