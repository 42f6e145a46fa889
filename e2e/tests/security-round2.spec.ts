// Security, round two (issue 12), as an attacker would try it against the production build:
// a viewer's hostile `topics=` filter must not hang the server; a page URL of any shape goes
// through sign-in and carries the page CSP; a cross-site page cannot make the browser change
// anything, with or without authentication; a rebound DNS name is refused; the session
// cookie is `__Host-` and Secure over https, where HSTS is sent too.
import http from "node:http";

import { Seeder, enc, expect, test } from "../fixtures";

import { passwordHash, startConsole, type RunningConsole } from "./support/console";

/** An SSE stream read in the background: what arrived so far, its status, and a way to stop. */
async function openStream(url: string): Promise<{ status: number; text: () => string; close: () => void }> {
  const abort = new AbortController();
  const res = await fetch(url, { signal: abort.signal, headers: { accept: "text/event-stream" } });
  let seen = "";
  if (res.body) {
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    void (async () => {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          seen += decoder.decode(value, { stream: true });
        }
      } catch {
        /* aborted */
      }
    })();
  }
  return { status: res.status, text: () => seen, close: () => abort.abort() };
}

/** A raw request with a Host header of our choosing (a browser reaching the console under a rebound name). */
function rawRequest(
  base: string,
  path: string,
  host: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: string }> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, path, method: init.method ?? "GET", headers: { ...init.headers, host } }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.setTimeout(10_000, () => req.destroy(new Error(`no answer to ${path} within 10 s`)));
    if (init.body !== undefined) req.write(init.body);
    req.end();
  });
}

test.describe.configure({ timeout: 360_000 });

test("a hostile topics filter does not hang the server: it still answers and bus messages still reach a normal subscriber", async ({ backend, seed, baseURL }) => {
  const normal = await openStream(`${baseURL}/api/v1/events?topics=${enc(`${seed.prefix}*`)}`);
  // As many stars as a pattern may hold, 32 patterns: a backtracking regex on these never finished.
  const hostile = [`${"*a".repeat(16)}b`, `${"*?".repeat(16)}!`, `*${"a*".repeat(15)}!`];
  const filter = Array.from({ length: 32 }, (_, i) => hostile[i % hostile.length]!).join(",");
  const attacker = await openStream(`${baseURL}/api/v1/events?topics=${enc(filter)}`);
  try {
    expect(normal.status).toBe(200);
    expect(attacker.status).toBe(200);
    // the topic every hostile pattern almost matches
    await backend.eventPublish(`${seed.prefix}${"a".repeat(400)}`, JSON.stringify({ n: 1 }));
    // a backtracking match would hold the event loop for minutes to years: any answer means it is free
    const health = await fetch(`${baseURL}/api/v1/health`, { signal: AbortSignal.timeout(30_000) });
    expect(health.status).toBe(200);

    await backend.eventPublish(seed.name("after"), JSON.stringify({ n: 2 }));
    await expect.poll(normal.text, { timeout: 60_000 }).toContain(seed.name("after"));
    expect(normal.text()).toContain(`${seed.prefix}${"a".repeat(400)}`);
    expect(attacker.text()).not.toContain(seed.name("after"));

    // beyond the caps: refused before any stream exists
    const over = await fetch(`${baseURL}/api/v1/events?topics=${enc("*".repeat(17))}`);
    expect(over.status).toBe(400);
    expect((await over.json()).error.message).toContain("at most 16 '*'");
  } finally {
    normal.close();
    attacker.close();
  }
});

test("without authentication a cross-site page cannot change anything: a text/plain form, a no-cors fetch, a rebound name", async ({ page, seed, backend, baseURL }) => {
  const queue = seed.name("jobs");
  for (const id of ["d1", "d2", "d3"]) await backend.queueDead(queue, Seeder.task(id, { n: 1 }));
  // a pending task keeps the queue (and its page) there once the dead letters are gone
  await backend.queuePush(queue, Seeder.task("p1", { n: 1 }));
  const target = `${baseURL}/api/v1/queues/${enc(queue)}/dead/delete`;

  // A page of another site (http://localhost:<port>, a site apart from 127.0.0.1; both on
  // loopback so Chromium's local-network rules stay out of it) posts `{"all": true}` as
  // text/plain: by a no-cors fetch, then by a form.
  const evil = http.createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html" });
    res.end(`<!doctype html><form id="f" method="POST" enctype="text/plain" action="${target}"><input name='{"all": true, "x": "' value='"}'></form>
      <script>
        fetch(${JSON.stringify(target)}, { method: "POST", mode: "no-cors", body: '{"all": true}' })
          .catch(() => undefined)
          .finally(() => document.getElementById("f").submit());
      </script>`);
  });
  await new Promise<void>((ok) => evil.listen(0, "127.0.0.1", ok));
  try {
    const port = (evil.address() as import("node:net").AddressInfo).port;
    const answers: number[] = [];
    page.on("response", (r) => {
      if (r.url() === target) answers.push(r.status());
    });
    const formAnswer = page.waitForResponse((r) => r.url() === target && r.request().resourceType() === "document");
    // "commit": the page's own form submission may start before its load event, and a goto
    // waiting for that load would be interrupted by it; the form's answer is what counts
    await page.goto(`http://localhost:${port}/`, { waitUntil: "commit" });
    const res = await formAnswer;
    expect(res.status()).toBe(403);
    expect(await res.text()).toContain("another site");
    expect(answers.length).toBeGreaterThanOrEqual(1);
    expect(await backend.dlqLength(queue)).toBe(3);
  } finally {
    await new Promise<void>((ok) => evil.close(() => ok()));
  }

  // DNS rebinding: evil.example resolves to the console, so its page is same-origin to the browser
  const rebound = await rawRequest(baseURL!, `/api/v1/queues/${enc(queue)}/dead/delete`, `evil.example:${new URL(baseURL!).port}`, {
    method: "POST",
    headers: { origin: `http://evil.example:${new URL(baseURL!).port}`, "sec-fetch-site": "same-origin", "x-fleet-csrf": "1", "content-type": "application/json" },
    body: '{"all": true}',
  });
  expect(rebound.status).toBe(421);
  expect(JSON.parse(rebound.body).error.code).toBe("misdirected_request");
  expect((await rawRequest(baseURL!, "/queues", "evil.example")).status).toBe(421);
  expect(await backend.dlqLength(queue)).toBe(3);

  // the console's own page still can: what it sends passes every check
  await page.goto(`/queues/${enc(queue)}`);
  const dead = page.getByRole("region", { name: "Dead letters", exact: true });
  await dead.getByRole("checkbox", { name: "Select every dead letter on this page" }).check();
  await dead.getByRole("button", { name: "Delete selected (3)" }).click();
  await page.getByRole("dialog", { name: "Delete 3 dead letters?" }).getByRole("button", { name: "Delete 3 dead letters" }).click();
  await expect(dead.getByRole("status")).toContainText("Deleted 3 dead letters");
  expect(await backend.dlqLength(queue)).toBe(0);
});

test.describe("with sign-in (a console of its own)", () => {
  const PASSWORD = "ada-admin-password-e2e";
  let c: RunningConsole;

  test.beforeAll(async () => {
    c = await startConsole({
      FLEET_BACKEND_URL: process.env.E2E_REDIS_URL!,
      FLEET_AUTH_USERS: `ada:admin:${passwordHash(PASSWORD)}`,
      FLEET_AUTH_SECRET: "e2e-round-two-secret-0123456789-0123456789",
    });
  });

  test.afterAll(async () => {
    await c?.close();
  });

  const signInHeaders = (origin: string, extra: Record<string, string> = {}) => ({
    origin,
    "sec-fetch-site": "same-origin",
    "x-fleet-csrf": "1",
    "content-type": "application/json",
    ...extra,
  });

  test("every page URL, whatever its shape, asks for sign-in and, signed in, carries the page CSP; only real assets skip it", async ({ playwright, seed }) => {
    const type = seed.name("scraper");
    await seed.workers(type, [{ id: "w1.png" }]);
    const anon = await playwright.request.newContext({ baseURL: c.baseURL });
    const shapes = [
      "/workers/a%2Fb",
      `/workers/${enc(type)}/w1.png`,
      "/foo.png",
      "/favicon.ico",
      "/robots.txt",
      "/icon.svg",
      "/app.webmanifest",
      "/chunk.js.map",
      "/queues/x.txt",
      "/_next/static/..%2F..%2Fworkers",
      "/_next/static/%2e%2e/%2e%2e/queues",
      "/api%2Fv1/queues",
    ];
    for (const path of shapes) {
      const res = await anon.get(path, { maxRedirects: 0 });
      expect(res.status(), path).toBe(303);
      expect(res.headers().location, path).toMatch(/\/signin(\?|$)/);
    }
    // double slashes are normalized first (308), then the same
    const doubled = await rawRequest(c.baseURL, "//workers", new URL(c.baseURL).host);
    expect([303, 308]).toContain(doubled.status);

    // the real static assets skip the proxy: no redirect for a signed-out browser
    const signin = await (await anon.get("/signin")).text();
    const chunk = /\/_next\/static\/[^"']+\.js/.exec(signin)?.[0];
    expect(chunk, "a script of the sign-in page").toBeTruthy();
    expect((await anon.get(chunk!, { maxRedirects: 0 })).status()).toBe(200);
    await anon.dispose();

    // signed in: the .png-looking worker page is a page, with its own nonce CSP
    const user = await playwright.request.newContext({ baseURL: c.baseURL });
    const signed = await user.post("/api/v1/auth/signin", { headers: signInHeaders(c.baseURL), data: { username: "ada", password: PASSWORD } });
    expect(signed.status()).toBe(200);
    for (const path of [`/workers/${enc(type)}/w1.png`, "/foo.png", "/workers/a%2Fb"]) {
      const res = await user.get(path, { maxRedirects: 0 });
      expect([200, 404], path).toContain(res.status());
      expect(res.headers()["content-type"], path).toContain("text/html");
      expect(res.headers()["content-security-policy"], path).toMatch(/script-src 'self' 'nonce-[^']+' 'strict-dynamic'/);
    }
    expect(await (await user.get(`/workers/${enc(type)}/w1.png`)).text()).toContain("w1.png");
    await user.dispose();
  });

  test("the session cookie is __Host- and Secure over https, where HSTS is sent; plain on plain-http loopback", async ({ playwright }) => {
    const ctx = await playwright.request.newContext({ baseURL: c.baseURL });
    const plain = await ctx.post("/api/v1/auth/signin", { headers: signInHeaders(c.baseURL), data: { username: "ada", password: PASSWORD } });
    expect(plain.headers()["set-cookie"]).toMatch(/^fleet_session=v2\.[^;]+; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+$/);
    expect((await ctx.get("/signin")).headers()["strict-transport-security"]).toBeUndefined();

    // behind a TLS proxy (X-Forwarded-Proto: https)
    const origin = c.baseURL.replace(/^http:/, "https:");
    const tls = await ctx.post("/api/v1/auth/signin", { headers: signInHeaders(origin, { "x-forwarded-proto": "https" }), data: { username: "ada", password: PASSWORD } });
    expect(tls.status()).toBe(200);
    expect(tls.headers()["set-cookie"]).toMatch(/^__Host-fleet_session=v2\.[^;]+; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+; Secure$/);
    const page = await ctx.get("/signin", { headers: { "x-forwarded-proto": "https" } });
    expect(page.headers()["strict-transport-security"]).toBe("max-age=31536000");
    const api = await ctx.get("/api/v1/health", { headers: { "x-forwarded-proto": "https" } });
    expect(api.headers()["strict-transport-security"]).toBe("max-age=31536000");
    // a cross-site text/plain sign-in (login CSRF) is refused
    const forged = await ctx.post("/api/v1/auth/signin", {
      headers: { origin: "https://evil.example", "content-type": "text/plain" },
      data: JSON.stringify({ username: "ada", password: PASSWORD }),
    });
    expect(forged.status()).toBe(403);
    await ctx.dispose();
  });
});
