import { runInNewContext } from "node:vm";

import { describe, expect, it } from "vitest";

import { MAX_FILTER_GLOBS, MAX_FILTER_GLOB_STARS, topicMatcher } from "./topics";

/** `fn` under a hard limit: the vm watchdog interrupts even a regex stuck backtracking. */
function within(budgetMs: number, fn: () => void): void {
  try {
    runInNewContext("fn()", { fn }, { timeout: budgetMs });
  } catch (err) {
    if ((err as { code?: string }).code === "ERR_SCRIPT_EXECUTION_TIMEOUT") throw new Error(`took longer than ${budgetMs} ms`);
    throw err;
  }
}

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
  it("is case-insensitive and matches only whole topics with a wildcard", () => {
    expect(topicMatcher("Fleet.*")("fleet.CONFIG")).toBe(true);
    expect(topicMatcher("*.emit")("scraper.emit.x")).toBe(false);
    expect(topicMatcher("a?c")("abc")).toBe(false);
    expect(topicMatcher("a?c")("xa?cx")).toBe(true);
  });

  it("stays fast on a hostile filter from a link (no backtracking regex)", () => {
    const hostile = [`${"*a".repeat(MAX_FILTER_GLOB_STARS)}b`, `${"*".repeat(MAX_FILTER_GLOB_STARS)}!`, `a${"*a".repeat(MAX_FILTER_GLOB_STARS - 1)}*!`].join(",");
    const m = topicMatcher(hostile);
    const topics = ["a".repeat(1000), "a".repeat(200), `${"a".repeat(500)}!x`];
    let matched = 0;
    within(2000, () => {
      for (const t of topics) if (m(t)) matched++;
    });
    expect(matched).toBe(0);
    expect(m.problem).toBeNull();
  });

  it("sets aside what is over the caps and says so", () => {
    const tooMany = topicMatcher(Array.from({ length: MAX_FILTER_GLOBS + 1 }, (_, i) => `<${i}>`).join(","));
    expect(tooMany.problem).toMatch(/first 32/);
    expect(tooMany("x.<31>")).toBe(true);
    expect(tooMany("x.<32>")).toBe(false);
    const stars = topicMatcher(`${"*".repeat(MAX_FILTER_GLOB_STARS + 1)},fleet.*`);
    expect(stars.problem).toMatch(/ignored/);
    expect(stars("fleet.admin")).toBe(true);
    expect(stars("scraper.emit")).toBe(false);
    const only = topicMatcher("x".repeat(201));
    expect(only.problem).toMatch(/ignored/);
    expect(only("x".repeat(201))).toBe(false);
    expect(topicMatcher("fleet.*").problem).toBeNull();
  });
});
