import { runInNewContext } from "node:vm";

import { describe, expect, it } from "vitest";

import { globMatch } from "@/lib/glob";

import { MAX_TOPIC_PATTERN_LENGTH, MAX_TOPIC_PATTERN_STARS, MAX_TOPIC_PATTERNS, busPayload, encodeComment, encodeFrame, parseTopicFilter } from "./frames";

/**
 * Runs `fn` under a hard time limit: node's vm watchdog interrupts even a regular
 * expression that backtracks for ever (a plain timer cannot, the event loop is stuck), so
 * a matcher that is not linear fails this test instead of hanging it.
 */
function msWithin(budgetMs: number, fn: () => void): void {
  try {
    runInNewContext("fn()", { fn }, { timeout: budgetMs });
  } catch (err) {
    if ((err as { code?: string }).code === "ERR_SCRIPT_EXECUTION_TIMEOUT") throw new Error(`took longer than ${budgetMs} ms`);
    throw err;
  }
}

const text = (b: Uint8Array) => new TextDecoder().decode(b);

describe("SSE frames", () => {
  it("writes id, event and one data line, even when the data holds line breaks", () => {
    const frame = text(encodeFrame(7, "bus", { topic: "a", payload: "line1\nline2\r\n", received_at: 1 }));
    expect(frame).toBe('id: 7\nevent: bus\ndata: {"topic":"a","payload":"line1\\nline2\\r\\n","received_at":1}\n\n');
    expect(frame.trimEnd().split("\n")).toHaveLength(3);
  });

  it("keeps a comment on one line", () => {
    expect(text(encodeComment("a\nb"))).toBe(": a b\n\n");
  });

  it("carries JSON payloads parsed and other payloads as text", () => {
    expect(busPayload(Buffer.from('{"n": 1, "s": "\\u00e9"}'))).toEqual({ n: 1, s: "é" });
    expect(busPayload(Buffer.from("42"))).toBe(42);
    // Python's json.dumps writes NaN/Infinity: still JSON to the page, the token as a string
    expect(busPayload(Buffer.from('{"rate": NaN, "max": Infinity}'))).toEqual({ rate: "NaN", max: "Infinity" });
    expect(busPayload(Buffer.from("not json"))).toBe("not json");
    expect(busPayload(Buffer.from([0xff, 0x41]))).toBe("\ufffdA");
  });
});

describe("topics filter", () => {
  it("lets everything through when absent or empty", () => {
    expect(parseTopicFilter(null)("anything")).toBe(true);
    expect(parseTopicFilter(" , ")("anything")).toBe(true);
  });

  it("matches exact names and globs, comma separated", () => {
    const f = parseTopicFilter("fleet.config,scraper.*");
    expect(f("fleet.config")).toBe(true);
    expect(f("fleet.admin")).toBe(false);
    expect(f("scraper.emit")).toBe(true);
    expect(f("scraper.")).toBe(true);
    expect(f("scraper")).toBe(false);
    expect(f("xscraper.emit")).toBe(false);
  });

  it("treats regex characters literally and supports ? and escapes", () => {
    expect(globMatch("a.b", "aXb")).toBe(false);
    expect(globMatch("a?c", "abc")).toBe(true);
    expect(globMatch("a?c", "ac")).toBe(false);
    expect(globMatch("a\\*", "a*")).toBe(true);
    expect(globMatch("a\\*", "ab")).toBe(false);
    expect(globMatch("(x)[y]{1}|-/+$^", "(x)[y]{1}|-/+$^")).toBe(true);
    expect(globMatch("é*", "été")).toBe(true);
    expect(globMatch("?", "é")).toBe(true);
    expect(globMatch("??", "😀")).toBe(false);
    expect(globMatch("a\\", "a\\")).toBe(true);
  });

  it("matches like Redis PSUBSCRIBE globs (a table of cases)", () => {
    const cases: Array<[string, string, boolean]> = [
      ["", "", true],
      ["", "a", false],
      ["*", "", true],
      ["*", "anything.at.all", true],
      ["***", "x", true],
      ["a*", "a", true],
      ["a*", "ba", false],
      ["*a", "ba", true],
      ["*a", "ab", false],
      ["a*b", "ab", true],
      ["a*b", "axxb", true],
      ["a*b", "axxbx", false],
      ["a*b*c", "abc", true],
      ["a*b*c", "acb", false],
      ["a*b*c", "abbbcbc", true],
      ["*ab*ab*", "abab", true],
      ["*ab*ab*", "aba", false],
      ["a*a", "a", false],
      ["a*a", "aa", true],
      ["*.emit", "scraper.emit", true],
      ["*.emit", "scraper.emitted", false],
      ["fleet.?dmin", "fleet.admin", true],
      ["*?*?*", "a", false],
      ["*?*?*", "ab", true],
      ["\\?", "?", true],
      ["\\?", "a", false],
      ["x*\\*", "xyz*", true],
      ["x*\\*", "xyz", false],
    ];
    for (const [pattern, topic, expected] of cases) expect(globMatch(pattern, topic), `${pattern} ~ ${topic}`).toBe(expected);
  });

  it("answers adversarial patterns in bounded time (no backtracking regex)", () => {
    // each of these made the old regex-based filter backtrack for minutes to years
    const long = "a".repeat(1000);
    const adversarial = [
      `${"*a".repeat(MAX_TOPIC_PATTERN_STARS)}b`,
      `${"*?".repeat(MAX_TOPIC_PATTERN_STARS)}b`,
      `a*${"a*".repeat(MAX_TOPIC_PATTERN_STARS - 1)}!`,
      `*${"?".repeat(150)}*b`,
    ];
    for (const p of adversarial) expect(p.length).toBeLessThanOrEqual(MAX_TOPIC_PATTERN_LENGTH);
    const filter = parseTopicFilter(adversarial.concat(Array.from({ length: MAX_TOPIC_PATTERNS - adversarial.length }, () => adversarial[0]!)).join(","));
    const topics = [long, `${long}.emit`, "a".repeat(200), `${"ab".repeat(500)}c`];
    let matched = 0;
    // a backtracking matcher takes minutes to years here, a linear one milliseconds: 20 s tells
    // them apart on any machine (msWithin fails the test when the watchdog fires)
    msWithin(20_000, () => {
      for (const t of topics) if (filter(t)) matched++;
    });
    expect(matched).toBe(0);
  });

  it("refuses too many or too long patterns, and too many stars", () => {
    expect(() => parseTopicFilter(Array.from({ length: 33 }, (_, i) => `t${i}`).join(","))).toThrow(RangeError);
    expect(() => parseTopicFilter("x".repeat(201))).toThrow(RangeError);
    expect(() => parseTopicFilter("*".repeat(MAX_TOPIC_PATTERN_STARS + 1))).toThrow(/at most 16 '\*'/);
    expect(() => parseTopicFilter("*".repeat(MAX_TOPIC_PATTERN_STARS))).not.toThrow();
    // escaped stars are literals, not wildcards
    expect(() => parseTopicFilter("\\*".repeat(MAX_TOPIC_PATTERN_STARS + 1))).not.toThrow();
  });
});
