/**
 * Finds a needle in text in time linear in the text, whatever the two hold
 * (Knuth–Morris–Pratt over UTF-16 code units). String#includes is not
 * linear: with a 1,000-character needle (the most search_files accepts) of
 * 100 `a`, a `b` and 899 `a`, one 1 MiB line of `a` took ~370 ms, all of
 * it on the event loop. The scan is resumable, so a long line can be fed in
 * pieces with the event loop getting a turn in between.
 */
export class SubstringScan {
  /** failure[i]: length of the longest proper prefix of needle[0..i] that is also its suffix. */
  private readonly failure: Int32Array;
  private readonly codes: Uint16Array;
  /** Characters of the needle matched so far. */
  private matched = 0;

  constructor(needle: string) {
    if (needle.length === 0) throw new RangeError('the needle must not be empty');
    this.codes = Uint16Array.from({ length: needle.length }, (_, i) => needle.charCodeAt(i));
    this.failure = new Int32Array(needle.length);
    for (let i = 1, k = 0; i < needle.length; i++) {
      while (k > 0 && this.codes[i] !== this.codes[k]) k = this.failure[k - 1];
      if (this.codes[i] === this.codes[k]) k++;
      this.failure[i] = k;
    }
  }

  /** Forgets what was fed so far (a new line starts). */
  reset(): void {
    this.matched = 0;
  }

  /** Feeds text[from, to); true once the needle has been seen (in this piece or across pieces fed since the last reset). */
  feed(text: string, from = 0, to = text.length): boolean {
    const { codes, failure } = this;
    const last = codes.length;
    let k = this.matched;
    for (let i = from; i < to; i++) {
      const c = text.charCodeAt(i);
      while (k > 0 && c !== codes[k]) k = failure[k - 1];
      if (c === codes[k]) k++;
      if (k === last) {
        this.matched = failure[k - 1];
        return true;
      }
    }
    this.matched = k;
    return false;
  }
}
