// Shared by the issue-19 specs: axe (serious and critical violations fail, as in pages.spec.ts)
// and the two sizes every point is checked at.
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";

import { expect } from "../../fixtures";

export const SIZES = [
  { label: "desktop", width: 1440, height: 900 },
  { label: "phone", width: 390, height: 844 },
] as const;

/** Fails with one line per serious or critical violation: rule, impact, help and the elements. */
export async function expectAxeClean(page: Page, where: string, include?: string): Promise<void> {
  let builder = new AxeBuilder({ page });
  if (include) builder = builder.include(include);
  const results = await builder.analyze();
  const bad = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  const report = bad.map(
    (v) =>
      `${v.id} (${v.impact}): ${v.help}\n` +
      v.nodes
        .slice(0, 8)
        .map((n) => `    ${n.target.join(" ")}  ${n.html.slice(0, 160)}${n.failureSummary ? `\n      ${n.failureSummary.replace(/\n/g, " ")}` : ""}`)
        .join("\n"),
  );
  expect(report, `axe: serious or critical violations on ${where}`).toEqual([]);
}

/** Every "Loading…" status gone (LoadingState, role=status). */
export async function waitUntilLoaded(page: Page): Promise<void> {
  await expect(page.getByRole("status").filter({ hasText: /^Loading/ })).toHaveCount(0);
}
