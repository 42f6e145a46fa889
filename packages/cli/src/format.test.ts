import { describe, expect, it } from "vitest";
import { printable, table } from "./format";

describe("table", () => {
  it("aligns columns, right-aligns numbers and cuts long cells", () => {
    const out = table(
      [
        { n: "a", v: 1, t: "short" },
        { n: "longer", v: 1234, t: "x".repeat(30) },
      ],
      [
        { header: "NAME", value: (r) => r.n },
        { header: "N", value: (r) => String(r.v), align: "right" },
        { header: "TEXT", value: (r) => r.t, max: 10 },
      ],
    );
    expect(out.split("\n")).toEqual(["NAME       N  TEXT", "a          1  short", "longer  1234  xxxxxxxxx…"]);
  });

  it("shows control characters of stored values as escapes, never raw", () => {
    expect(printable("a\nb\tc\u001b[31mred\u0007")).toBe("a\\nb\\tc\\u001b[31mred\\u0007");
  });
});
