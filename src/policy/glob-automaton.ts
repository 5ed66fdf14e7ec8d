import type { CharClass, GlobNode } from './glob-parse.js';

/**
 * A parsed glob as a state machine that reads a text once, left to right,
 * never backtracking: the cost of a match is linear in the text's length
 * (times the glob's length at worst, and the glob is bounded), whatever the
 * glob. This replaces a RegExp translation whose backtracking made a pattern
 * like 490 stars and an `x` run for ever on the event loop.
 *
 * It is a Thompson NFA (one state per glob element, braces as epsilon
 * branches, so `{a,b}{a,b}…` is never expanded) simulated with state sets,
 * plus a lazily built DFA cache: each set of NFA states met is interned once
 * with its transitions, so matching thousands of names against one glob
 * costs one lookup per character after the first few names. The cache is
 * bounded and simply starts over when full.
 */

/** What a consuming state accepts: a code point (>= 0), or one of these. */
const ONE_BUT_SLASH = -1;
const ANY = -2;
/** Classes are -3, -4, …: index = CLASS_BASE - test. */
const CLASS_BASE = -3;
const SLASH = 0x2f;

// biome-ignore lint/suspicious/noConstEnum: module-local, so every build inlines it (no cross-file const enum); the matcher's inner loop compares these numbers
const enum Kind {
  Match,
  Split,
  Consume,
}

/** How much the DFA cache holds before it starts over: interned states, NFA state ids held by them, transitions. */
interface CacheLimits {
  states: number;
  ids: number;
  transitions: number;
}

const DEFAULT_CACHE_LIMITS: CacheLimits = { states: 2_000, ids: 200_000, transitions: 100_000 };

interface DfaState {
  /** The NFA states (consuming or Match) active here, sorted. */
  readonly ids: Int32Array;
  readonly accepting: boolean;
  /** Where each code point leads; empty `ids` means the text can no longer match. */
  readonly next: Map<number, DfaState>;
}

export class GlobAutomaton {
  private readonly kinds: Kind[] = [];
  private readonly tests: number[] = [];
  private readonly outs: number[] = [];
  private readonly splits: Array<number[] | undefined> = [];
  private readonly classes: CharClass[] = [];
  private readonly start: number;

  private cache = new Map<string, DfaState>();
  private heldIds = 0;
  private heldTransitions = 0;
  private startState: DfaState | undefined;
  // Scratch for the set simulation: a generation mark per NFA state instead of a fresh Set per step.
  private marks: Uint32Array;
  private generation = 0;

  /** `upper`, when matching ignores case, lets a class range match the upper-case form of a (lower-cased) character. */
  constructor(
    nodes: GlobNode[],
    private readonly upper?: (cp: number) => number,
    private readonly limits: CacheLimits = DEFAULT_CACHE_LIMITS,
  ) {
    const match = this.add(Kind.Match, 0, -1);
    this.start = this.sequence(nodes, match);
    this.marks = new Uint32Array(this.kinds.length);
  }

  /** Whether the whole text matches. */
  matches(text: string): boolean {
    let state = this.initial();
    for (let i = 0; i < text.length; ) {
      const cp = text.codePointAt(i)!;
      i += cp > 0xffff ? 2 : 1;
      state = this.step(state, cp);
      if (state.ids.length === 0) return false;
    }
    return state.accepting;
  }

  /**
   * Whether the glob matches `segments[0..n]` joined by `/` for some n >= 1:
   * one pass over the path, checking at each segment's end (a deny rule for
   * a directory denies what is inside it).
   */
  matchesSomePrefix(segments: readonly string[]): boolean {
    let state = this.initial();
    for (let s = 0; s < segments.length; s++) {
      if (s > 0) state = this.step(state, SLASH);
      const text = segments[s];
      for (let i = 0; i < text.length && state.ids.length > 0; ) {
        const cp = text.codePointAt(i)!;
        i += cp > 0xffff ? 2 : 1;
        state = this.step(state, cp);
      }
      if (state.ids.length === 0) return false;
      if (state.accepting) return true;
    }
    return false;
  }

  // --- construction (right to left: each element is built knowing what follows it) ---

  private add(kind: Kind, test: number, out: number, split?: number[]): number {
    this.kinds.push(kind);
    this.tests.push(test);
    this.outs.push(out);
    this.splits.push(split);
    return this.kinds.length - 1;
  }

  private sequence(nodes: GlobNode[], next: number): number {
    for (let k = nodes.length - 1; k >= 0; k--) next = this.node(nodes[k], next);
    return next;
  }

  private node(node: GlobNode, next: number): number {
    switch (node.kind) {
      case 'char':
        return this.add(Kind.Consume, node.cp, next);
      case 'one':
        return this.add(Kind.Consume, ONE_BUT_SLASH, next);
      case 'class':
        this.classes.push(node.cls);
        return this.add(Kind.Consume, CLASS_BASE - (this.classes.length - 1), next);
      case 'star':
      case 'globstar':
        return this.loop(node.kind === 'star' ? ONE_BUT_SLASH : ANY, next);
      case 'dirs': {
        // (any* /)? : skip, or any run that ends with a slash.
        const slash = this.add(Kind.Consume, SLASH, next);
        const run = this.loop(ANY, slash);
        return this.add(Kind.Split, 0, -1, [next, run]);
      }
      case 'alt':
        return this.add(
          Kind.Split,
          0,
          -1,
          node.alternatives.map((alt) => this.sequence(alt, next)),
        );
    }
  }

  /** `test*` then `next`: a split that either consumes one more or moves on. */
  private loop(test: number, next: number): number {
    const split = this.add(Kind.Split, 0, -1, []);
    const consume = this.add(Kind.Consume, test, split);
    this.splits[split] = [consume, next];
    return split;
  }

  // --- simulation ---

  private accepts(test: number, cp: number): boolean {
    if (test >= 0) return test === cp;
    if (test === ONE_BUT_SLASH) return cp !== SLASH;
    if (test === ANY) return true;
    const cls = this.classes[CLASS_BASE - test];
    if (cls.negated && cp === SLASH) return false;
    let member = inRanges(cls.ranges, cp);
    if (!member && this.upper) {
      const up = this.upper(cp);
      if (up !== cp) member = inRanges(cls.ranges, up);
    }
    return member !== cls.negated;
  }

  /** Adds `from` and every state reachable from it without consuming to `into` (iterative: no deep recursion). */
  private close(from: number, into: number[]): void {
    const stack = [from];
    while (stack.length > 0) {
      const s = stack.pop()!;
      if (this.marks[s] === this.generation) continue;
      this.marks[s] = this.generation;
      if (this.kinds[s] === Kind.Split) {
        const outs = this.splits[s]!;
        for (let k = outs.length - 1; k >= 0; k--) stack.push(outs[k]);
      } else {
        into.push(s);
      }
    }
  }

  private nextGeneration(): void {
    if (++this.generation === 0xffffffff) {
      this.marks.fill(0);
      this.generation = 1;
    }
  }

  private initial(): DfaState {
    if (!this.startState) {
      this.nextGeneration();
      const ids: number[] = [];
      this.close(this.start, ids);
      this.startState = this.intern(ids);
    }
    return this.startState;
  }

  private step(state: DfaState, cp: number): DfaState {
    const known = state.next.get(cp);
    if (known) return known;
    this.nextGeneration();
    const ids: number[] = [];
    for (const s of state.ids) {
      if (this.kinds[s] === Kind.Consume && this.accepts(this.tests[s], cp)) this.close(this.outs[s], ids);
    }
    const target = this.intern(ids);
    if (++this.heldTransitions > this.limits.transitions) this.forget();
    state.next.set(cp, target);
    return target;
  }

  private intern(ids: number[]): DfaState {
    ids.sort((a, b) => a - b);
    const key = ids.join(',');
    let state = this.cache.get(key);
    if (state) return state;
    if (this.cache.size >= this.limits.states || this.heldIds + ids.length > this.limits.ids) this.forget();
    state = { ids: Int32Array.from(ids), accepting: ids.some((s) => this.kinds[s] === Kind.Match), next: new Map() };
    this.cache.set(key, state);
    this.heldIds += ids.length;
    return state;
  }

  /** Starts the cache over rather than let it grow: states a match in progress holds stay valid, merely uncached. */
  private forget(): void {
    this.cache = new Map();
    this.heldIds = 0;
    this.heldTransitions = 0;
    this.startState = undefined;
  }
}

function inRanges(ranges: Array<[number, number]>, cp: number): boolean {
  for (const [lo, hi] of ranges) if (cp >= lo && cp <= hi) return true;
  return false;
}
