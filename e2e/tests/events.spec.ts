// The live bus: a message published on any `event:<topic>` channel shows on /events.
import { enc, expect, screenshotPath, test, waitForLive } from "../fixtures";

test("a message published on event:<anything> appears on the events page, filtered by topic", async ({ page, seed, backend }) => {
  const topic = seed.name("scraper.emit");
  const plainTopic = seed.name("anything.at.all");
  const elsewhere = `other.${seed.prefix}ignored`;

  // The filter lives in the URL: only this test's topics.
  await page.goto(`/events?topics=${enc(`${seed.prefix}*`)}`);
  await expect(page.getByLabel("Topic filter")).toHaveValue(`${seed.prefix}*`);
  await waitForLive(page);

  await backend.eventPublish(topic, JSON.stringify({ score: 1764400000.25, rows: 3, note: "hello from the e2e suite" }));
  const first = page.getByTestId("bus-event").filter({ hasText: topic });
  await expect(first).toBeVisible();
  await expect(first).toContainText("hello from the e2e suite");

  await backend.eventPublish(elsewhere, JSON.stringify({ note: "not for this filter" }));
  await backend.eventPublish(plainTopic, "plain text, not JSON");
  const second = page.getByTestId("bus-event").filter({ hasText: plainTopic });
  await expect(second).toContainText("plain text, not JSON");
  // Messages arrive in order, so the unmatched one was seen and filtered out.
  await expect(page.getByTestId("bus-event")).toHaveCount(2);
  await expect(page.getByTestId("bus-event").filter({ hasText: elsewhere })).toHaveCount(0);

  // Each payload expands in full.
  await first.getByRole("button", { name: `Show payload of ${topic}` }).click();
  await expect(first.getByRole("button", { name: "Copy payload" })).toBeVisible();
  await expect(first).toContainText("1764400000.25");
  await page.screenshot({ path: screenshotPath("flow-events") });
});
