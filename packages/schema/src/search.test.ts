import { describe, expect, it } from "vitest";

import { normalizeErrorMessage } from "./error-group";
import { compileFilter, FILTER_MAX_COMPARISONS, FILTER_MAX_DEPTH, FILTER_MAX_LENGTH, FilterNodeSchema, FilterSyntaxError, parseFilter, SearchQuerySchema } from "./search";

const match = (where: string, body: unknown) => compileFilter(parseFilter(where))(body);

/** What parseFilter threw, as "position: message"; fails when it threw anything else or nothing. */
function syntaxError(where: string): { position: number; message: string } {
  try {
    parseFilter(where);
  } catch (err) {
    expect(err).toBeInstanceOf(FilterSyntaxError);
    const e = err as FilterSyntaxError;
    return { position: e.position, message: e.message };
  }
  throw new Error(`${JSON.stringify(where)} parsed`);
}

const task = {
  id: "t-1",
  attempts: 3,
  last_error: "Timeout after 30s fetching https://x.example/a",
  payload: { customer: "c17", "odd key": { "a.b": 1 }, items: [{ sku: "A" }, { sku: "B" }], flag: true, none: null, n: 2.5 },
};

describe("parseFilter", () => {
  it("builds a tree with precedence: not, then and, then or", () => {
    expect(parseFilter('a = 1 or b = 2 and not c = "x"')).toEqual({
      kind: "or",
      items: [
        { kind: "cmp", path: ["a"], op: "=", value: 1 },
        {
          kind: "and",
          items: [
            { kind: "cmp", path: ["b"], op: "=", value: 2 },
            { kind: "not", item: { kind: "cmp", path: ["c"], op: "=", value: "x" } },
          ],
        },
      ],
    });
    expect(parseFilter("(a = 1 or b = 2) and c != null")).toEqual({
      kind: "and",
      items: [
        {
          kind: "or",
          items: [
            { kind: "cmp", path: ["a"], op: "=", value: 1 },
            { kind: "cmp", path: ["b"], op: "=", value: 2 },
          ],
        },
        { kind: "cmp", path: ["c"], op: "!=", value: null },
      ],
    });
  });

  it("reads every operator, literal and path form", () => {
    for (const op of ["=", "!=", "<", "<=", ">", ">="]) expect(parseFilter(`attempts ${op} -1.5e2`)).toMatchObject({ op, value: -150 });
    expect(parseFilter('last_error ~ "time"')).toMatchObject({ op: "~", value: "time" });
    expect(parseFilter("x=TRUE")).toMatchObject({ value: true });
    expect(parseFilter("x = False")).toMatchObject({ value: false });
    expect(parseFilter("x = NULL")).toMatchObject({ value: null });
    expect(parseFilter(`payload."odd key".'a.b' = 1`)).toMatchObject({ path: ["payload", "odd key", "a.b"] });
    expect(parseFilter("payload.items.1.sku = 'B'")).toMatchObject({ path: ["payload", "items", "1", "sku"] });
    expect(parseFilter('"and" = 1')).toMatchObject({ path: ["and"] });
    expect(parseFilter('x = "a\\"b\\\\c\\n\\u0041"')).toMatchObject({ value: 'a"b\\c\nA' });
    expect(parseFilter("a = 1 AND b = 2 Or NOT c = 3")).toMatchObject({ kind: "or" });
  });

  it("names the position and what was expected for every kind of mistake", () => {
    expect(syntaxError("")).toEqual({ position: 0, message: "at position 1: expected a comparison such as attempts >= 3, found an empty filter" });
    expect(syntaxError("attempts >=")).toEqual({
      position: 11,
      message: 'at position 12: expected a value after >=: a "quoted" text, a number, true, false or null, found the end of the filter',
    });
    expect(syntaxError("payload.customer = c17").message).toContain('a bare word is not a value: write "c17"');
    expect(syntaxError("payload.customer = c17").position).toBe(19);
    expect(syntaxError("attempts 3").message).toContain("expected an operator after the field attempts");
    expect(syntaxError('x = "open').position).toBe(4);
    expect(syntaxError('x = "open').message).toContain('a closing " for the text opened here');
    expect(syntaxError("(a = 1").message).toContain("')' to close the '(' at position 1");
    expect(syntaxError("a = 1)").message).toContain("this ')' closes nothing");
    expect(syntaxError("a = 1 b = 2").message).toContain("expected and, or, or the end of the filter, found 'b'");
    expect(syntaxError("a ~ 3").message).toContain('a "quoted" text after ~');
    expect(syntaxError("a ! b").message).toContain("'!='");
    expect(syntaxError("a = 1 and").message).toContain("expected a field");
    expect(syntaxError("a. = 1").message).toContain("a member name after '.'");
    expect(syntaxError("a = 1e").message).toContain("digits of the exponent");
    expect(syntaxError("a = 12abc").message).toContain("after the number");
    expect(syntaxError("a = 1 # x").message).toContain("found '#'");
    expect(syntaxError('a = "\\q"').message).toContain("one of");
    expect(syntaxError('a = "\\u12"').message).toContain("four hex digits");
    expect(syntaxError("or = 1").message).toContain("is a field only when");
  });

  it("refuses adversarial input cleanly: length, depth, comparison and path limits; regex metacharacters are data; nothing but FilterSyntaxError", () => {
    // too long
    expect(syntaxError("a".repeat(FILTER_MAX_LENGTH + 1)).message).toContain(`at most ${FILTER_MAX_LENGTH} characters`);
    // deep nesting, within the length limit
    expect(syntaxError(`${"(".repeat(400)}a = 1${")".repeat(400)}`).message).toContain(`at most ${FILTER_MAX_DEPTH} levels`);
    expect(syntaxError(`${"not ".repeat(200)}a = 1`).message).toContain(`at most ${FILTER_MAX_DEPTH} levels`);
    // the depth limit itself parses
    expect(() => parseFilter(`${"(".repeat(FILTER_MAX_DEPTH)}a = 1${")".repeat(FILTER_MAX_DEPTH)}`)).not.toThrow();
    // too many comparisons
    expect(syntaxError(Array.from({ length: FILTER_MAX_COMPARISONS + 1 }, (_, i) => `a = ${i}`).join(" or ")).message).toContain(`at most ${FILTER_MAX_COMPARISONS} comparisons`);
    // a long path
    expect(syntaxError(`${Array.from({ length: 20 }, () => "a").join(".")} = 1`).message).toContain("a path of at most 16 members");
    // regex metacharacters are data, never patterns: a catastrophic pattern is a substring that is not there...
    const evil = { a: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!" };
    expect(match('a ~ "(a+)+$"', evil)).toBe(false);
    expect(match('a ~ ".*.*.*.*.*!"', evil)).toBe(false);
    // ...and the same text, literally present, matches (case-insensitively)
    expect(match('a ~ "(A+)+$"', { a: "x(a+)+$y" })).toBe(true);
    expect(match('a ~ ".*!"', { a: "ab!" })).toBe(false);
    expect(match('a ~ ".*!"', { a: "a.*!b" })).toBe(true);
    // NUL and a lone surrogate inside a quoted text are data too
    expect(match('a = "\u0000\ud800"', { a: "\u0000\ud800" })).toBe(true);
    expect(match('a = "\u0000\ud800"', evil)).toBe(false);
    // control and separator characters outside quotes are refused, at their position
    expect(syntaxError("a\u0000 = 1").position).toBe(1);
    expect(syntaxError("\u202e = 1").position).toBe(0);
    expect(syntaxError("a = 1\u2028").position).toBe(5);
    // random garbage never throws anything else
    let seed = 7;
    const rnd = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed;
    };
    const alphabet = ["(", ")", '"', "'", "\\", ".", "=", "!", "<", ">", "~", " ", "a", "1", "-", "e", "and", "or", "not", "null", "\u00e9", "\ud83d"];
    const outcomes = { parsed: 0, refused: 0 };
    const valid = ['attempts >= 3 and not last_error ~ "time"', "(a = 1 or b != null) and payload.n < 2.5", "payload.items.1.sku = 'B' or flag = true"];
    const check = (s: string) => {
      try {
        const node = parseFilter(s);
        expect(FilterNodeSchema.safeParse(node).success, s).toBe(true);
        expect(typeof compileFilter(node)(task), s).toBe("boolean");
        outcomes.parsed++;
      } catch (err) {
        expect(err, s).toBeInstanceOf(FilterSyntaxError);
        outcomes.refused++;
      }
    };
    for (let i = 0; i < 3000; i++) {
      // pure garbage, and a valid filter with one to three characters changed
      check(Array.from({ length: rnd() % 40 }, () => alphabet[rnd() % alphabet.length]).join(""));
      let m = valid[i % valid.length]!;
      for (let k = 0; k <= rnd() % 3; k++) {
        const at = rnd() % (m.length + 1);
        m = m.slice(0, at) + (rnd() % 2 ? alphabet[rnd() % alphabet.length] : "") + m.slice(at + 1);
      }
      check(m);
    }
    // both paths ran: the garbage is not all refused at the first character
    expect(outcomes.parsed).toBeGreaterThan(0);
    expect(outcomes.refused).toBeGreaterThan(0);
  });
});

describe("compileFilter", () => {
  it("compares fields of the body", () => {
    expect(match('payload.customer = "c17"', task)).toBe(true);
    expect(match('payload.customer = "C17"', task)).toBe(false);
    expect(match("attempts >= 3", task)).toBe(true);
    expect(match("attempts > 3", task)).toBe(false);
    expect(match("attempts < 3.5 and attempts <= 3", task)).toBe(true);
    expect(match('attempts = "3"', task)).toBe(false);
    expect(match('id = "t-1"', task)).toBe(true);
    expect(match('id > "t-0"', task)).toBe(true);
    expect(match("payload.flag = true and payload.n = 2.5", task)).toBe(true);
    expect(match("payload.none = null and payload.missing = null", task)).toBe(true);
    expect(match("payload.customer != null", task)).toBe(true);
    expect(match('payload.missing != "x"', task)).toBe(true);
    expect(match("payload.missing < 1 or payload.missing >= 1", task)).toBe(false);
    expect(match(`payload."odd key"."a.b" = 1`, task)).toBe(true);
    expect(match("payload.items.1.sku = 'B'", task)).toBe(true);
    expect(match("payload.items.01.sku = 'B'", task)).toBe(false);
    expect(match("payload.items.length = 2", task)).toBe(false);
    expect(match("payload.customer.length = 3", task)).toBe(false);
    expect(match("payload.__proto__ != null", task)).toBe(false);
    expect(match("not (attempts = 3 or attempts = 4)", task)).toBe(false);
  });

  it("~ is a case-insensitive substring of the text (numbers as written, objects as JSON)", () => {
    expect(match('last_error ~ "TIMEOUT"', task)).toBe(true);
    expect(match('last_error ~ "refused"', task)).toBe(false);
    expect(match('attempts ~ "3"', task)).toBe(true);
    expect(match('payload ~ "\\"sku\\": \\"b"', task)).toBe(false);
    expect(match('payload.items ~ "\\"sku\\":\\"b"', task)).toBe(true);
    expect(match('payload.missing ~ ""', task)).toBe(false);
  });

  it("error_group is the normalised last_error", () => {
    const group = normalizeErrorMessage(task.last_error);
    expect(group).toBe("Timeout after <n>s fetching <url>");
    expect(match(`error_group = ${JSON.stringify(group)}`, task)).toBe(true);
    expect(match(`error_group = ${JSON.stringify(group)}`, { ...task, last_error: "Timeout after 5s fetching http://y/" })).toBe(true);
    expect(match('error_group = "Timeout after <n>s"', { last_error: "Timeout after 12s" })).toBe(true);
    expect(match('error_group = ""', { id: 1 })).toBe(true);
    expect(match('error_group ~ "timeout"', { last_error: 42 })).toBe(false);
  });

  it("any JSON value is a subject: non-objects have no members", () => {
    for (const body of [null, 1, "x", [], [1], true]) {
      expect(match("a = 1", body)).toBe(false);
      expect(match("a = null", body)).toBe(true);
    }
  });
});

describe("SearchQuerySchema", () => {
  it("reads in= as a list, all lists when absent, and refuses unknown names", () => {
    expect(SearchQuerySchema.parse({}).in).toEqual(["pending", "processing", "scheduled", "dead"]);
    expect(SearchQuerySchema.parse({ in: "dead, pending,dead" }).in).toEqual(["dead", "pending"]);
    const bad = SearchQuerySchema.safeParse({ in: "dead,graveyard" });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.message).toBe("in names pending, processing, scheduled or dead, not 'graveyard'");
    expect(SearchQuerySchema.safeParse({ limit: "5000" }).success).toBe(false);
    expect(SearchQuerySchema.parse({ limit: "5" }).limit).toBe(5);
  });
});
