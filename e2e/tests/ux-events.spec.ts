// Issue 19, point 10: bus messages read as summaries with a human time and a link to what they
// concern (not a bare epoch number); topic chips filter.
import { atEveryLook, enc, expect, test, waitForLive } from "../fixtures";

// Four looks (sizes × schemes) each with axe and a full-page picture: minutes on a loaded machine.
test.describe.configure({ timeout: 240_000 });

test("events show readable summaries with links, and topic chips filter, at both sizes", async ({ page, seed, backend }) => {
  const type = seed.name("scraper");
  const emit = `${type}.emit`;
  const other = seed.name("custom.topic");
  await page.goto(`/events?topics=${enc(`${seed.prefix}*`)}`);
  await waitForLive(page);

  // What Fleet publishes on <type>.emit: the new stream entry's score, a bare unix time.
  await backend.eventPublish(emit, "1764400000.25");
  await backend.eventPublish(other, JSON.stringify({ automation_type: type, worker_id: "w1", finished_at: 1764400000, pages: 12 }));

  const emitRow = page.getByTestId("bus-event").filter({ hasText: emit });
  const summary = emitRow.getByTestId("bus-summary");
  await expect(summary).toHaveText(/^New entry on stream .+, written at \d\d:\d\d:\d\d$/);
  await expect(summary).toContainText(type);
  await expect(emitRow).not.toContainText("1764400000");
  await expect(emitRow.getByRole("link", { name: `stream ${type}` })).toHaveAttribute("href", `/streams/${enc(type)}`);

  const otherRow = page.getByTestId("bus-event").filter({ hasText: other });
  await expect(otherRow.getByTestId("bus-summary")).toHaveText(/finished_at \d\d:\d\d:\d\d · pages 12$/);
  await expect(otherRow.getByRole("link", { name: "worker w1" })).toHaveAttribute("href", `/workers/${enc(type)}/w1`);

  // The whole payload is still one click away, as sent.
  await emitRow.getByRole("button", { name: `Show payload of ${emit}` }).click();
  await expect(emitRow).toContainText("1764400000.25");

  await atEveryLook(page, "events", "ux-events", async () => {
    // the summary reads whole at either size: not cut down to "New entry on stream …"
    await expect(summary).toHaveText(/written at \d\d:\d\d:\d\d$/);
    const box = await summary.evaluate((el) => ({ sw: el.scrollWidth, cw: el.clientWidth, sh: el.scrollHeight, ch: el.clientHeight }));
    expect(box.sw <= box.cw + 1 && box.sh <= box.ch + 2, `the summary shows whole (${JSON.stringify(box)})`).toBe(true);
  });

  // A chip filters to its topic (and says so); pressed again, it lets everything through.
  const chips = page.getByRole("group", { name: "Filter by a recent topic" });
  const chip = chips.getByRole("button", { name: new RegExp(`^${emit.replace(/[.]/g, "\\.")} \\d+$`) });
  await chip.click();
  await expect(chip).toHaveAttribute("aria-pressed", "true");
  await expect(page.getByLabel("Topic filter")).toHaveValue(emit);
  await expect(page.getByTestId("bus-event")).toHaveCount(1);
  await expect(chips.getByRole("button", { name: "All topics" })).toHaveAttribute("aria-pressed", "false");
  await chips.getByRole("button", { name: "All topics" }).click();
  await expect(page.getByLabel("Topic filter")).toHaveValue("");
  await expect(page.getByTestId("bus-event").filter({ hasText: other })).toHaveCount(1);

  // A row's topic is a link to the events of that topic.
  await otherRow.getByRole("link", { name: other }).click();
  await expect(page).toHaveURL(new RegExp(`topics=${enc(other).replace(/[.]/g, "\\.")}$`));
  await expect(page.getByTestId("bus-event")).toHaveCount(1);
});
