// Issue 19, point 9: Pause / Resume a worker (slots to 0 and back to what it ran, as a reviewed
// If-Match config write, recorded in the audit trail as a pause or a resume), and the
// destructive actions (Remove worker, Remove whole pool) set apart at the bottom of their pages.
import { atEveryLook, auditEntries, enc, expect, expectAxeClean, screenshotPath, SIZES, test, waitUntilLoaded } from "../fixtures";

// Four looks (sizes × schemes) each with axe and a full-page picture: minutes on a loaded machine.
test.describe.configure({ timeout: 240_000 });

async function lastAudit(backend: import("@fleet/backend").Backend): Promise<Record<string, unknown>> {
  return (await auditEntries(backend, 1))[0]!;
}

test("Pause sets slots to 0 through a reviewed config write; Resume puts back the value the pause recorded; both audited", async ({ page, seed, backend }) => {
  const type = await seed.configurable("scraper", [{ id: "w1", config: { slots: 3, mode: "stealth" }, stats: { config_gen: 1 } }]);

  await page.goto(`/workers/${enc(type)}/w1`);
  await page.getByRole("button", { name: "Pause…" }).click();
  const pause = page.getByRole("dialog", { name: "Pause w1?" });
  await expect(pause.getByTestId("config-change")).toHaveCount(1);
  await expect(pause.getByTestId("config-change")).toContainText("Slots");
  await expect(pause.getByTestId("config-change").getByRole("cell").first()).toHaveText("3");
  await expect(pause.getByTestId("config-change").getByRole("cell").last()).toHaveText("0");
  await expectAxeClean(page, "the pause review");
  await pause.screenshot({ path: screenshotPath("ux-pause-review") });
  await pause.getByRole("button", { name: "Pause: set slots to 0" }).click();
  await expect(pause).toBeHidden();
  const outcome = page.getByTestId("pause-outcome");
  await expect(outcome).toContainText("Paused: generation 1 → 2.");
  await expect(outcome.getByTestId("config-applied")).toHaveAttribute("data-state", "waiting");
  await expect(page.getByTestId("paused-badge")).toHaveText("Paused (slots 0)");
  expect(await backend.workerGetConfig(type, "w1")).toEqual({ config: { slots: 0, mode: "stealth" }, gen: 2 });
  expect(await lastAudit(backend)).toMatchObject({
    action: "worker.config.patch",
    target: `worker:${type}/w1`,
    outcome: "done",
    details: { intent: "pause", slots_before: 3, slots_after: 0 },
  });
  // The worker reports the new generation: applied.
  await backend.workerSetStats(type, "w1", { config_gen: 2 });
  await expect(outcome.getByTestId("config-applied")).toHaveAttribute("data-state", "applied");
  // The config editor below follows the new generation.
  await expect(page.getByTestId("config-generation")).toContainText("2");

  await atEveryLook(page, "a paused worker", "ux-paused-worker", async () => {
    await expect(page.getByTestId("paused-badge")).toBeVisible();
  });

  await page.getByRole("button", { name: "Resume…" }).click();
  const resume = page.getByRole("dialog", { name: "Resume w1?" });
  await expect(resume.getByTestId("pause-previous")).toContainText("Before the pause it ran 3 slots");
  await expect(resume.getByRole("textbox", { name: "Slots after resuming" })).toHaveValue("3");
  await expectAxeClean(page, "the resume review");
  await resume.screenshot({ path: screenshotPath("ux-resume-review") });
  await resume.getByRole("button", { name: "Resume with 3 slots" }).click();
  await expect(resume).toBeHidden();
  await expect(outcome).toContainText("Resumed: generation 2 → 3.");
  await expect(page.getByTestId("paused-badge")).toHaveCount(0);
  expect(await backend.workerGetConfig(type, "w1")).toEqual({ config: { slots: 3, mode: "stealth" }, gen: 3 });
  expect(await lastAudit(backend)).toMatchObject({ details: { intent: "resume", slots_before: 0, slots_after: 3 } });
});

test("Resume without a recorded pause asks for the slots; a schema that forbids 0 slots cannot be paused", async ({ page, seed, backend }) => {
  const type = await seed.configurable("scraper", [{ id: "stopped", config: { slots: 0 } }]);
  await page.goto(`/workers/${enc(type)}/stopped`);
  await page.getByRole("button", { name: "Resume…" }).click();
  const resume = page.getByRole("dialog", { name: "Resume stopped?" });
  await expect(resume.getByTestId("pause-previous")).toContainText("does not say how many slots it ran before");
  const slots = resume.getByRole("textbox", { name: "Slots after resuming" });
  await slots.fill("0");
  await expect(slots).toHaveAttribute("aria-invalid", "true");
  await expect(resume.getByRole("button", { name: /^Resume with/ })).toBeDisabled();
  await slots.fill("2");
  await resume.getByRole("button", { name: "Resume with 2 slots" }).click();
  await expect(resume).toBeHidden();
  expect(await backend.workerGetConfig(type, "stopped")).toEqual({ config: { slots: 2 }, gen: 2 });

  const strict = seed.name("strict");
  await seed.automation(strict, { config: { type: "object", properties: { slots: { type: "integer", minimum: 1, title: "Slots" } } } });
  await seed.workers(strict, [{ id: "w1", config: { slots: 2 } }]);
  await page.goto(`/workers/${enc(strict)}/w1`);
  await page.getByRole("button", { name: "Pause…" }).click();
  const pause = page.getByRole("dialog", { name: "Pause w1?" });
  await expect(pause.getByRole("alert")).toContainText("does not allow this");
  await expect(pause.getByRole("button", { name: "Pause: set slots to 0" })).toBeDisabled();
  expect(await backend.workerGetConfig(strict, "w1")).toEqual({ config: { slots: 2 }, gen: 1 });
});

test("Remove worker and Remove whole pool sit in a danger zone at the bottom, not in the header, at both sizes", async ({ page, seed, backend }) => {
  const type = await seed.configurable("scraper", [{ id: "w1", config: { slots: 1 } }]);
  const pool = seed.name("proxies");
  await backend.poolPut(pool, "p1", "http://10.0.0.1:8080", { region: "eu" });

  for (const size of SIZES) {
    await page.setViewportSize(size);
    for (const [path, button, above] of [
      [`/workers/${enc(type)}/w1`, "Remove worker", page.getByRole("region", { name: "Config", exact: true })],
      [`/pools/${enc(pool)}`, "Remove whole pool", page.getByRole("main").getByText("p1").first()],
    ] as const) {
      await page.goto(path);
      const zone = page.getByRole("region", { name: "Danger zone" });
      await expect(zone.getByRole("button", { name: button })).toBeVisible();
      await expect(page.getByRole("button", { name: button })).toHaveCount(1);
      // Below the page's content, not among the header's actions.
      await expect(above).toBeVisible();
      expect((await zone.boundingBox())!.y).toBeGreaterThan((await above.boundingBox())!.y);
      await waitUntilLoaded(page);
      for (const scheme of ["light", "dark"] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await expectAxeClean(page, `${path} at ${size.label}, ${scheme}`);
        await zone.screenshot({ path: screenshotPath(`ux-danger-${button.replace(/ /g, "-")}-${size.label}-${scheme}`) });
      }
      await page.emulateMedia({ colorScheme: "light" });
    }
  }
});
