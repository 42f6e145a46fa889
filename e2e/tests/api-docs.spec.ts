// The API reference page (/api-docs): reached from the main navigation, it lists every
// operation of GET /api/v1/openapi.json grouped by tag, with method, path, role, parameters
// and schemas as text; it loads nothing from elsewhere, breaks no rule of the page CSP (no
// securitypolicyviolation), passes axe without serious or critical violations at desktop and
// phone sizes, and its schema links land on their schema.
import { SIZES, expect, expectAxeClean, screenshotPath, test } from "../fixtures";

interface Doc {
  paths: Record<string, Record<string, { operationId: string; tags: string[]; "x-fleet-role": string }>>;
  components: { schemas: Record<string, unknown> };
}

test("the API reference lists every operation of the OpenAPI document, reached from the navigation, under the page CSP", async ({ page, request, baseURL }) => {
  const api = await request.get("/api/v1/openapi.json");
  expect(api.status()).toBe(200);
  const doc = (await api.json()) as Doc;
  const ops = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, ...op })));
  expect(ops.length).toBeGreaterThanOrEqual(40);

  const foreign: string[] = [];
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("request", (r) => {
    if (!r.url().startsWith("data:") && new URL(r.url()).origin !== new URL(baseURL!).origin) foreign.push(r.url());
  });
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => {
      (window as unknown as { __cspViolations: string[] }).__cspViolations ??= [];
      (window as unknown as { __cspViolations: string[] }).__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`);
    });
  });

  // from the navigation, as a person gets there
  await page.goto("/");
  await page.getByRole("navigation", { name: "Main" }).first().getByRole("link", { name: "API" }).click();
  await expect(page).toHaveURL(/\/api-docs$/);
  await expect(page.getByRole("heading", { level: 1, name: "API reference" })).toBeVisible();
  const res = await page.reload();
  expect(res?.status()).toBe(200);
  expect(res?.headers()["content-security-policy"] ?? "").toMatch(/script-src[^;]*'nonce-/);

  // every operation, with its method, path and role, under its tag's heading
  const cards = page.getByTestId("api-operation");
  await expect(cards).toHaveCount(ops.length);
  const shown = await cards.evaluateAll((els) =>
    els.map((el) => ({
      id: el.getAttribute("aria-labelledby"),
      heading: el.querySelector("h3")?.textContent,
      role: el.querySelector("[data-testid=api-role]")?.textContent,
      tag: el.closest("section")?.querySelector("h2")?.textContent,
    })),
  );
  expect(shown.sort((a, b) => String(a.id).localeCompare(String(b.id)))).toEqual(
    ops.map((op) => ({ id: `op-${op.operationId}`, heading: `${op.method}${op.path}`, role: op["x-fleet-role"], tag: op.tags[0] })).sort((a, b) => a.id.localeCompare(b.id)),
  );
  // parameters, request body and response schemas as text
  const listWorkers = page.locator('article[aria-labelledby="op-listWorkers"]');
  await expect(listWorkers.getByRole("table")).toContainText("limit");
  await expect(listWorkers.getByRole("table")).toContainText("sort");
  await expect(listWorkers.getByRole("link", { name: "WorkerList" })).toBeVisible();
  const requeue = page.locator('article[aria-labelledby="op-requeueDeadLetters"]');
  await expect(requeue).toContainText("refs: string[]");
  await expect(requeue).toContainText("403");
  // every schema has its section, and a link lands on it
  await expect(page.locator("[id^='schema-']")).toHaveCount(Object.keys(doc.components.schemas).length);
  await listWorkers.getByRole("link", { name: "WorkerList" }).click();
  await expect(page).toHaveURL(/#schema-WorkerList$/);
  await expect(page.getByRole("heading", { level: 3, name: "WorkerList" })).toBeInViewport();

  expect(await page.evaluate(() => (window as unknown as { __cspViolations?: string[] }).__cspViolations ?? [])).toEqual([]);
  expect(foreign, "requests to other origins").toEqual([]);
  expect(errors, "uncaught page errors").toEqual([]);
});

test("the API reference has no serious accessibility violations at 1440x900 and 390x844", async ({ page }) => {
  // a long page (every operation and schema): axe takes a while on it
  test.setTimeout(540_000);
  for (const vp of SIZES) {
    await page.setViewportSize({ width: vp.width, height: vp.height });
    await page.goto("/api-docs");
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await page.screenshot({ path: screenshotPath(`page-api-docs-${vp.label}`), fullPage: false });
    await expectAxeClean(page, `/api-docs at ${vp.width}x${vp.height}`);
  }
});
