import { describe, expect, it } from "vitest";

import { busPayload, encodeComment, encodeFrame, globToRegExp, parseTopicFilter } from "./frames";

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
    expect(globToRegExp("a.b").test("aXb")).toBe(false);
    expect(globToRegExp("a?c").test("abc")).toBe(true);
    expect(globToRegExp("a?c").test("ac")).toBe(false);
    expect(globToRegExp("a\\*").test("a*")).toBe(true);
    expect(globToRegExp("a\\*").test("ab")).toBe(false);
    expect(globToRegExp("(x)[y]{1}|-/+$^").test("(x)[y]{1}|-/+$^")).toBe(true);
    expect(globToRegExp("é*").test("été")).toBe(true);
  });

  it("refuses too many or too long patterns", () => {
    expect(() => parseTopicFilter(Array.from({ length: 33 }, (_, i) => `t${i}`).join(","))).toThrow(RangeError);
    expect(() => parseTopicFilter("x".repeat(201))).toThrow(RangeError);
  });
});
