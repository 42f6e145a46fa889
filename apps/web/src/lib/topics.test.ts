import { describe, expect, it } from "vitest";

import { topicMatcher } from "./topics";

describe("topicMatcher", () => {
  it("matches everything when empty", () => {
    expect(topicMatcher("")("anything")).toBe(true);
    expect(topicMatcher(" , ")("anything")).toBe(true);
  });
  it("anchors globs and treats dots literally", () => {
    const m = topicMatcher("fleet.*");
    expect(m("fleet.config")).toBe(true);
    expect(m("xfleet.config")).toBe(false);
    expect(m("fleetXconfig")).toBe(false);
  });
  it("matches a plain word as a substring and accepts comma-separated lists", () => {
    const m = topicMatcher("scraper, fleet.admin");
    expect(m("scraper.emit")).toBe(true);
    expect(m("fleet.admin")).toBe(true);
    expect(m("enricher.emit")).toBe(false);
  });
  it("escapes regular-expression characters", () => {
    expect(topicMatcher("a+b")("a+b.x")).toBe(true);
    expect(topicMatcher("a+b")("aab")).toBe(false);
  });
});
