import { describe, expect, it } from "vitest";

import { Exposition, escapeLabelValue } from "./exposition";
import { parseExposition, sampleValue } from "./test/parse-exposition";

describe("Prometheus exposition writer", () => {
  it("writes HELP, TYPE and samples that the strict reader accepts", () => {
    const text = new Exposition()
      .gauge("fleet_a", "first\nline \\ two", [{ value: 1 }])
      .gauge("fleet_b", "b", [
        { labels: { q: 'we"ird\\name\nx' }, value: 2.5 },
        { labels: { q: "plain" }, value: NaN },
      ])
      .gauge("fleet_empty", "no samples", [])
      .toString();
    expect(text).toContain('fleet_b{q="we\\"ird\\\\name\\nx"} 2.5\n');
    expect(text).toContain("# HELP fleet_a first\\nline \\\\ two\n");
    const parsed = parseExposition(text);
    expect(parsed.get("fleet_a")?.help).toBe("first\nline \\ two");
    expect(sampleValue(parsed, "fleet_b", { q: 'we"ird\\name\nx' })).toBe(2.5);
    expect(sampleValue(parsed, "fleet_b", { q: "plain" })).toBeNaN();
    expect(parsed.get("fleet_empty")?.type).toBe("gauge");
  });

  it("refuses bad names and a family written twice", () => {
    expect(() => new Exposition().gauge("fleet-bad", "x", [])).toThrow();
    expect(() => new Exposition().gauge("fleet_x", "x", [{ labels: { "bad-label": "v" }, value: 1 }])).toThrow();
    expect(() => new Exposition().gauge("fleet_x", "x", []).gauge("fleet_x", "x", [])).toThrow();
  });

  it("escapes exactly backslash, quote and line feed in label values", () => {
    expect(escapeLabelValue('a\\b"c\nd\te')).toBe('a\\\\b\\"c\\nd\te');
  });

  it("the reader rejects what Prometheus rejects", () => {
    expect(() => parseExposition("fleet_x 1\n")).toThrow(/before its TYPE/);
    expect(() => parseExposition('# TYPE fleet_x gauge\nfleet_x{a="\\q"} 1\n')).toThrow(/bad escape/);
    expect(() => parseExposition("# TYPE fleet_x gauge\nfleet_x 1\nfleet_x 2\n")).toThrow(/duplicate/);
    expect(() => parseExposition("# TYPE fleet_x gauge\nfleet_x 1\n# TYPE fleet_y gauge\nfleet_y 1\nfleet_x 3\n")).toThrow(/split/);
    expect(() => parseExposition("# TYPE fleet_x gauge\nfleet_x one\n")).toThrow(/bad value/);
    expect(() => parseExposition("# TYPE fleet_x gauge\nfleet_x 1")).toThrow(/line feed/);
  });
});
