// Channel globs matched in linear-bounded time, without building a regular expression from
// what a user typed. A regex such as `^.*.*.*x$` backtracks exponentially in the number of
// stars on a topic that does not match; a viewer's `?topics=` (or a link to the /events
// page) must never be able to spin the event loop. Shared by the server's `topics=` filter
// of GET /api/v1/events (src/server/events/frames.ts) and the /events page (./topics.ts).
//
// The matcher splits the pattern at its stars into segments and places each segment at its
// leftmost possible position after the previous one. That greedy placement is exact for
// `*`/`?` globs (a later star can absorb whatever an earlier placement skipped), so it never
// goes back: the work is at most (topic length) x (pattern length) character comparisons,
// however many stars there are.

/** One character of a segment: a literal code point, or `?` (any one code point). */
type Piece = string | null;

export interface CompiledGlob {
  /** The pattern started with `*`: the first segment may sit anywhere. */
  readonly openStart: boolean;
  /** The pattern ended with `*`: the last segment may end anywhere. */
  readonly openEnd: boolean;
  readonly segments: readonly (readonly Piece[])[];
}

export interface GlobSyntax {
  /** `?` matches one character (Redis PSUBSCRIBE). Else it is a literal. */
  questionMark: boolean;
  /** `\` makes the next character literal (Redis PSUBSCRIBE). Else it is a literal. */
  backslashEscape: boolean;
  /** Compare case-insensitively (both sides lower-cased). */
  ignoreCase: boolean;
}

export const REDIS_GLOB: GlobSyntax = { questionMark: true, backslashEscape: true, ignoreCase: false };

/** Counts the unescaped `*` of a pattern (what the caps below limit). */
export function countStars(pattern: string, syntax: GlobSyntax): number {
  let n = 0;
  const cps = Array.from(pattern);
  for (let i = 0; i < cps.length; i++) {
    if (syntax.backslashEscape && cps[i] === "\\" && i + 1 < cps.length) i++;
    else if (cps[i] === "*") n++;
  }
  return n;
}

export function compileGlob(pattern: string, syntax: GlobSyntax): CompiledGlob {
  const cps = Array.from(syntax.ignoreCase ? pattern.toLowerCase() : pattern);
  // tokens: a piece, or STAR for an unescaped `*`
  const STAR = Symbol("star");
  const tokens: Array<Piece | typeof STAR> = [];
  for (let i = 0; i < cps.length; i++) {
    const c = cps[i]!;
    if (syntax.backslashEscape && c === "\\" && i + 1 < cps.length) tokens.push(cps[++i]!);
    else if (c === "*") tokens.push(STAR);
    else if (c === "?" && syntax.questionMark) tokens.push(null);
    else tokens.push(c);
  }
  const segments: Piece[][] = [];
  let current: Piece[] = [];
  for (const t of tokens) {
    if (t === STAR) {
      // consecutive stars are one star
      if (current.length > 0) segments.push(current);
      current = [];
    } else current.push(t);
  }
  if (current.length > 0) segments.push(current);
  return { openStart: tokens[0] === STAR, openEnd: tokens.length > 0 && tokens[tokens.length - 1] === STAR, segments };
}

function pieceFits(seg: readonly Piece[], topic: readonly string[], at: number): boolean {
  for (let j = 0; j < seg.length; j++) {
    const p = seg[j]!;
    if (p !== null && p !== topic[at + j]) return false;
  }
  return true;
}

/** `topic` as code points (lower-cased for an ignoreCase glob): split once, tested against many globs. */
export function topicCodePoints(topic: string, ignoreCase: boolean): string[] {
  return Array.from(ignoreCase ? topic.toLowerCase() : topic);
}

export function matchCompiledGlob(g: CompiledGlob, topic: readonly string[]): boolean {
  const segs = g.segments;
  const n = topic.length;
  if (segs.length === 0) {
    // "" matches only ""; a pattern of stars matches everything
    return g.openStart || g.openEnd || n === 0;
  }
  if (!g.openStart && !g.openEnd && segs.length === 1) {
    return segs[0]!.length === n && pieceFits(segs[0]!, topic, 0);
  }
  let from = 0;
  let first = 0;
  let last = segs.length;
  if (!g.openStart) {
    const s = segs[0]!;
    if (s.length > n || !pieceFits(s, topic, 0)) return false;
    from = s.length;
    first = 1;
  }
  let end = n;
  if (!g.openEnd) {
    const s = segs[segs.length - 1]!;
    if (s.length > end - from || !pieceFits(s, topic, n - s.length)) return false;
    end = n - s.length;
    last = segs.length - 1;
  }
  // the middle segments, each at its leftmost place in [from, end)
  for (let k = first; k < last; k++) {
    const s = segs[k]!;
    let at = from;
    while (at + s.length <= end && !pieceFits(s, topic, at)) at++;
    if (at + s.length > end) return false;
    from = at + s.length;
  }
  return true;
}

/** One-off match (tests, single patterns). */
export function globMatch(pattern: string, topic: string, syntax: GlobSyntax = REDIS_GLOB): boolean {
  return matchCompiledGlob(compileGlob(pattern, syntax), topicCodePoints(topic, syntax.ignoreCase));
}
