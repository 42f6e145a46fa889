// The watch in the browser (issue 15): a queue's history charts from seeded history (the
// 48-byte records as README "Queue history" documents them, written through the backend),
// the range picker, the overview's fleet strip; the alert editor (live validation, review of
// every change, save with the generation, a conflict), and the console's own watch firing a
// rule and delivering it to a webhook receiver this test runs. Pages are axe-clean.
//
// The alert rules are one document for the whole console: the alert tests empty the alert
// keys before and after (the e2e tier runs one test at a time).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

import AxeBuilder from "@axe-core/playwright";
import { consoleKeys, type Backend } from "@fleet/backend";
import { RedisBackend } from "@fleet/backend/redis";
import type { Page } from "@playwright/test";

import { auditEntries, enc, expect, screenshotPath, test } from "../fixtures";

// ---- the history record layout (README, "Queue history")
const FIELDS = ["ts", "high", "normal", "low", "processing", "overdue", "scheduled", "dead", "finished", "oldest", "samples", "flags"] as const;
const RECORD = FIELDS.length * 4;
const SLOTS = 8640;
type Rec = Partial<Record<(typeof FIELDS)[number], number>>;

function record(r: Rec): Buffer {
  const b = Buffer.alloc(RECORD);
  for (const [i, f] of FIELDS.entries()) b.writeUInt32LE(r[f] ?? (f === "samples" ? 1 : 0), i * 4);
  return b;
}

/** One point per 10 s over the last `minutes`, up to (not including) the current slot. */
async function seedHistory(backend: Backend, queue: string, minutes: number, at: (i: number) => Rec): Promise<number> {
  const now = Math.floor(Date.now() / 1000 / 10) * 10;
  const n = minutes * 6;
  const slots = Array.from({ length: n }, (_, k) => {
    const ts = now - (n - k) * 10;
    return { series: queue, tier: "10s" as const, offset: (Math.floor(ts / 10) % SLOTS) * RECORD, bytes: record({ ts, ...at(k) }) };
  });
  await backend.historyWrite(slots, { ttlSeconds: 3600 });
  return n;
}

async function expectNoSeriousViolations(page: Page, where: string): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  const bad = results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help} ${v.nodes
          .slice(0, 4)
          .map((n) => n.target.join(" "))
          .join(", ")}`,
    );
  expect(bad, `axe on ${where}`).toEqual([]);
}

async function clearAlerts(backend: Backend): Promise<void> {
  if (!(backend instanceof RedisBackend)) return;
  await backend.health();
  await backend.client.del(consoleKeys.alertRules, consoleKeys.alertFiring, consoleKeys.alertOutbox, consoleKeys.alertHistory);
}

test.describe.configure({ timeout: 360_000 });

test("queue history: charts of what was recorded, a range picker, drain in words; axe-clean", async ({ page, backend, prefix }) => {
  const queue = `${prefix}jobs`;
  for (let i = 0; i < 4; i++) await backend.queuePush(queue, JSON.stringify({ id: `t${i}`, payload: {} }));
  await backend.queueDead(queue, JSON.stringify({ id: "d1", payload: {} }));
  // a backlog that falls from 100 to 41 over the last ten minutes, 12 finished per tick, one dead letter
  const points = await seedHistory(backend, queue, 10, (k) => ({ normal: 100 - k, high: 3, processing: 2, dead: 1, finished: 12, oldest: 120 + k * 10 }));

  await page.goto(`/queues/${enc(queue)}`);
  const history = page.getByTestId("queue-history");
  await expect(history.getByRole("heading", { name: "History" })).toBeVisible();
  // The latest point is the seeded one, or the console's own watch's for the current slot
  // (it records this queue too: 4 pending, 1 dead, nothing in flight), whichever came last.
  const depth = history.getByRole("img", {
    name: /^Depth by state over time, 36\d points, latest high (3|0), normal (41|4), low 0, in flight (2|0), scheduled 0, overdue 0, dead 1$/,
  });
  await expect(depth).toBeVisible();
  await expect(history.locator("canvas").first()).toBeVisible();
  // The chart's latest point may be the watch's own (what it saw leave the pending lists between
  // two looks, which the pushes above can make "at least" something), so the seeded throughput is
  // checked in what the page draws from: 12 finished per 10 s is 72 per minute at every seeded point.
  await expect(history.getByRole("img", { name: /^Finished per minute( \(at least\))? over time, 36\d points, latest [\d.]+$/ })).toBeVisible();
  const drawn = await page.request.get(`/api/v1/queues/${enc(queue)}/history?range=1h`);
  expect(drawn.status()).toBe(200);
  const h = (await drawn.json()) as { points: { ts: number[]; finished_per_minute: Array<number | null>; pending_normal: Array<number | null> } };
  // (a seeded slot the watch wrote over at a 10 s boundary may differ: at most one or two)
  const seeded = h.points.finished_per_minute.filter((v, i) => v !== null && h.points.pending_normal[i]! > 4);
  expect(seeded.filter((v) => v === 72).length, JSON.stringify(seeded)).toBeGreaterThanOrEqual(58);
  await expect(history.getByTestId("drain-text")).not.toBeEmpty();
  await expect(history.getByRole("img", { name: /^Oldest pending wait over time/ })).toBeVisible();
  await expect(history.getByTestId("history-charts")).toHaveAttribute("data-range", "1h");
  expect(points).toBe(60);

  // 24 h: two-minute points, the same history
  await history.getByRole("button", { name: "24 h" }).click();
  await expect(history.getByRole("button", { name: "24 h" })).toHaveAttribute("aria-pressed", "true");
  await expect(history.getByTestId("history-charts")).toHaveAttribute("data-range", "24h");
  await expect(history.getByRole("img", { name: /^Depth by state over time, 72\d points/ })).toBeVisible();
  // 30 d: hourly points from the 5-minute ring (which the console's watch fills as it records)
  await history.getByRole("button", { name: "30 d" }).click();
  await expect(history.getByTestId("history-charts")).toHaveAttribute("data-range", "30d");
  await expect(history.getByRole("img", { name: /^Depth by state over time, 72\d points/ })).toBeVisible();
  await history.getByRole("button", { name: "1 h" }).click();
  await expect(depth).toBeVisible();
  await page.screenshot({ path: screenshotPath("watch-queue-history"), fullPage: true });
  await expectNoSeriousViolations(page, "the queue page with its history");

  // the overview's fleet-wide strip
  await page.goto("/");
  const strip = page.getByTestId("fleet-history");
  await expect(strip.getByRole("heading", { name: "Queue history (all queues)" })).toBeVisible();
  await expect(strip.getByRole("group", { name: /Range of the fleet's history/ })).toBeVisible();
  await expectNoSeriousViolations(page, "the overview with the fleet's history");
});

test.describe("alerts", () => {
  let receiver: Server;
  let received: Array<Record<string, unknown>>;
  let hookUrl: string;

  test.beforeEach(async ({ backend }) => {
    await clearAlerts(backend);
    received = [];
    receiver = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        received.push(JSON.parse(body) as Record<string, unknown>);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
    hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook?token=e2e-secret`;
  });

  test.afterEach(async ({ backend }) => {
    await clearAlerts(backend);
    receiver.closeAllConnections();
    await new Promise<void>((r) => receiver.close(() => r()));
  });

  test("the editor checks as you type, reviews every change, saves with its generation; the rule fires and is delivered", async ({ page, backend, prefix }) => {
    const queue = `${prefix}jobs`;
    await page.goto("/alerts");
    await expect(page.getByRole("heading", { name: "Alerts", level: 1 })).toBeVisible();
    await expect(page.getByText("No rules yet.")).toBeVisible();
    await expectNoSeriousViolations(page, "the empty Alerts page");

    await page.getByRole("button", { name: "Edit rules…" }).click();
    const editor = page.getByTestId("rules-editor");
    const text = editor.getByLabel("Alert rules (JSON)");
    await expect(text).toBeVisible();
    const review = editor.getByRole("button", { name: "Review changes…" });
    await expect(review).toBeDisabled(); // nothing changed yet

    // not JSON, then JSON the schema refuses: said at once, no review possible
    await text.fill('{"rules": [');
    await expect(editor.getByText(/This is not valid JSON/)).toBeVisible();
    await text.fill(JSON.stringify({ rules: [{ id: "Bad Id", name: "x", kind: "overdue_leases", queue: queue, more_than: 0 }] }));
    await expect(
      editor
        .getByRole("alert")
        .or(editor.getByText(/must match pattern|does not match|pattern/i))
        .first(),
    ).toBeVisible();
    await expect(review).toBeDisabled();

    // a valid document: one webhook, one rule on this test's queue (a template, then edited)
    const doc = {
      webhooks: [{ id: "e2e-hook", name: "E2E receiver", url: hookUrl, format: "json" }],
      rules: [{ id: "overdue", name: "Leases overdue", enabled: true, kind: "overdue_leases", queue, more_than: 0, webhooks: ["e2e-hook"] }],
    };
    await text.fill(JSON.stringify(doc, null, 2));
    await expect(review).toBeEnabled();
    await review.click();
    const changes = editor.getByTestId("rules-review");
    await expect(changes.getByRole("table")).toContainText("overdue");
    await expect(changes.getByRole("table")).toContainText("e2e-hook");
    await expectNoSeriousViolations(page, "the rules review");
    await editor.getByRole("button", { name: "Save" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Saved: the alert rules are at generation 1." })).toBeVisible();
    const rules = page.getByTestId("rules-table");
    await expect(rules).toContainText("Leases overdue");
    await expect(rules).toContainText(`queue ${queue}: more than 0 reservations past their deadline`);
    // audited, with the webhook's secret masked
    const entry = (await auditEntries(backend, 20)).find((e) => e.action === "alerts.rules.put");
    expect(entry).toMatchObject({ outcome: "done", status: 200, target: "alerts:rules" });
    expect(JSON.stringify(entry)).not.toContain("e2e-secret");

    // the console's own watch (the leader) sees an overdue reservation, fires, delivers
    await backend.queuePush(queue, JSON.stringify({ id: "late", payload: {} }));
    await backend.queueReserve(queue, 0, 1);
    await expect(page.getByTestId("firing-list")).toContainText(`reservation of queue '${queue}' is past the deadline`, { timeout: 60_000 });
    await expect.poll(() => received.map((r) => r.status), { timeout: 60_000 }).toEqual(["firing"]);
    expect(received[0]).toMatchObject({ alert: { rule_id: "overdue", subject: queue, value: 1 }, source: "fleet-console" });
    await expect(page.getByTestId("alert-history")).toContainText("Delivered");
    await page.screenshot({ path: screenshotPath("watch-alerts-firing"), fullPage: true });
    await expectNoSeriousViolations(page, "the Alerts page with an alert firing");

    // acked: it resolves, and the receiver gets exactly one resolved message
    await backend.queueAck(queue, "late");
    await expect(page.getByText("Nothing is firing.")).toBeVisible({ timeout: 60_000 });
    await expect.poll(() => received.map((r) => r.status), { timeout: 60_000 }).toEqual(["firing", "resolved"]);
  });

  test("a save over someone else's newer rules is refused with a way to reload theirs", async ({ page, backend }) => {
    // The page could learn of the other save before the click (its live stream's catch-up
    // refetches what it shows; a new generation remounts the editor and the review with it),
    // so its reads of the rules are answered as before that save until the refusal is seen.
    const isRules = (u: URL) => u.pathname === "/api/v1/alerts/rules";
    const before = await page.request.get("/api/v1/alerts/rules");
    expect(before.status()).toBe(200);
    const rulesBefore = await before.text();
    await page.route(isRules, (route) =>
      route.request().method() === "GET" ? route.fulfill({ status: 200, contentType: "application/json", body: rulesBefore }) : route.fallback(),
    );
    await page.goto("/alerts");
    await page.getByRole("button", { name: "Edit rules…" }).click();
    const editor = page.getByTestId("rules-editor");
    await editor.getByLabel("Alert rules (JSON)").fill(JSON.stringify({ webhooks: [], rules: [{ id: "mine", name: "Mine", kind: "pool_free", pool: "*", fewer_than: 1 }] }));
    await editor.getByRole("button", { name: "Review changes…" }).click();
    // meanwhile someone else saves (generation 0 -> 1)
    await backend.alertRulesSet(JSON.stringify({ webhooks: [], rules: [] }), 0);
    await editor.getByRole("button", { name: "Save" }).click();
    await expect(editor.getByRole("alert")).toContainText("The alert rules have changed: they are at generation 1, not 0");
    await page.unroute(isRules);
    await editor.getByRole("button", { name: "Reload theirs" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Someone else saved the rules first" })).toBeVisible();
    await expect(page.getByRole("heading", { name: /Rules/ })).toContainText("generation 1");
    expect((await backend.alertRulesGet()).doc?.toString()).toBe(JSON.stringify({ webhooks: [], rules: [] }));
  });
});
