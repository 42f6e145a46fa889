// Three console replicas (`next start` each) behind a real load balancer (Debian's HAProxy,
// round robin) on one private Redis: a session made through one works on every replica,
// sign-out on one ends it on all, sign-in throttling counts across replicas, the audit trail
// is one, each replica keeps exactly one Redis subscription however many live tabs, and the
// watch (queue history, alerts) runs in one replica: one leader, each alert delivered once.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { createRedisBackend } from "@fleet/backend/redis";
import { startPrivateRedis, type PrivateRedis } from "@fleet/backend/testing/private-redis";

import { expect, test } from "../fixtures";

import { freePort, passwordHash, startConsole, type RunningConsole } from "./support/console";

const PASSWORD = "ada-admin-password-0123";
const dir = mkdtempSync(join(tmpdir(), "fleet-replicas-"));
let redis: PrivateRedis | undefined;
let haproxy: ChildProcess;
let lb = "";
const replicas: RunningConsole[] = [];

test.describe.configure({ mode: "serial", timeout: 900_000 });

async function until<T>(what: string, ms: number, fn: () => Promise<T | null | false>): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn().catch(() => null);
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** redis-cli against the private Redis. */
function cli(...args: string[]): string {
  return spawnSync("redis-cli", ["-p", String(redis!.port), ...args], { encoding: "utf8" }).stdout.trim();
}

test.beforeAll(async () => {
  redis = await startPrivateRedis();
  const env = {
    FLEET_BACKEND_URL: redis.url(0),
    FLEET_AUTH_USERS: `ada:admin:${passwordHash(PASSWORD)}`,
    FLEET_AUTH_SECRET: "e2e-replicas-secret-0123456789-0123456789",
  };
  for (let i = 0; i < 3; i++) replicas.push(await startConsole(env));
  const lbPort = await freePort();
  const cfg = join(dir, "haproxy.cfg");
  writeFileSync(
    cfg,
    [
      "global",
      "  maxconn 512",
      "defaults",
      "  mode http",
      "  timeout connect 2s",
      "  timeout client 120s",
      "  timeout server 120s",
      "frontend console",
      `  bind 127.0.0.1:${lbPort}`,
      "  default_backend replicas",
      "backend replicas",
      "  balance roundrobin",
      ...replicas.map((c, i) => `  server r${i} ${c.baseURL.replace("http://", "")}`),
      "",
    ].join("\n"),
  );
  haproxy = spawn("haproxy", ["-f", cfg, "-db"], { stdio: "ignore" });
  lb = `http://127.0.0.1:${lbPort}`;
  await until("HAProxy", 10_000, async () => (await fetch(`${lb}/api/v1/health`)).ok);
});

test.afterAll(async () => {
  haproxy?.kill("SIGKILL");
  await Promise.all(replicas.map((c) => c.close()));
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const signInBody = (password: string) => JSON.stringify({ username: "ada", password });
const jsonHeaders = (base: string) => ({ "content-type": "application/json", origin: base, "sec-fetch-site": "same-origin", "x-fleet-csrf": "1" });

test("a session made through the load balancer works on every replica; sign-out on one ends it on all", async ({ page }) => {
  await page.goto(`${lb}/signin`);
  await page.getByLabel("User name").fill("ada");
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("user-menu")).toContainText("Signed in as ada");
  const cookie = (await page.context().cookies()).find((c) => c.name.endsWith("fleet_session"))!;
  expect(cookie).toBeTruthy();
  const asAda = { cookie: `${cookie.name}=${cookie.value}` };
  // every replica takes it (the round robin sent the sign-in to one of them)
  for (const c of replicas) expect((await fetch(`${c.baseURL}/api/v1/queues`, { headers: asAda })).status, c.baseURL).toBe(200);
  // sign out on the second replica
  const out = await fetch(`${replicas[1]!.baseURL}/api/v1/auth/signout`, { method: "POST", headers: { ...asAda, ...jsonHeaders(replicas[1]!.baseURL) } });
  expect(out.status).toBe(200);
  for (const c of [...replicas, { baseURL: lb }]) expect((await fetch(`${c.baseURL}/api/v1/queues`, { headers: asAda })).status, c.baseURL).toBe(401);
  // the page, through the balancer, goes back to sign-in: on its own (its live stream or its
  // next query is refused) or when reloaded. A reload that the page's own redirect overtakes is
  // aborted, or fails outright when the redirect swapped the page's frame under it ("Not
  // attached to an active page", seen in CI): what counts is where the page ends up, so a
  // reload is only a nudge, tried again until the page is on sign-in.
  await expect(async () => {
    if (!/\/signin/.test(page.url())) {
      await page.waitForURL(/\/signin/, { timeout: 2_000 }).catch(() => page.reload({ timeout: 10_000 }).catch(() => undefined));
    }
    expect(page.url()).toMatch(/\/signin/);
  }).toPass({ timeout: 60_000 });
  await expect(page.getByLabel("User name")).toBeVisible();
});

test("sign-in throttling counts failures across replicas", async () => {
  const statuses: number[] = [];
  // one after the other, each to another replica: 3 failures are free, the 4th waits
  for (let i = 0; i < 4; i++) {
    const c = replicas[i % 3]!;
    const res = await fetch(`${c.baseURL}/api/v1/auth/signin`, { method: "POST", headers: jsonHeaders(c.baseURL), body: signInBody("wrong") });
    statuses.push(res.status);
  }
  expect(statuses).toEqual([401, 401, 401, 429]);
});

test("the audit trail is one: each replica reads the sign-ins and sign-outs of all", async () => {
  const res = await fetch(`${replicas[2]!.baseURL}/api/v1/auth/signin`, { method: "POST", headers: jsonHeaders(replicas[2]!.baseURL), body: signInBody(PASSWORD) });
  // the throttle of the test before may still hold this name from this address: wait it out
  if (res.status === 429) await new Promise((r) => setTimeout(r, Number(res.headers.get("retry-after") ?? 1) * 1000 + 100));
  const ok =
    res.status === 200
      ? res
      : await fetch(`${replicas[2]!.baseURL}/api/v1/auth/signin`, { method: "POST", headers: jsonHeaders(replicas[2]!.baseURL), body: signInBody(PASSWORD) });
  expect(ok.status).toBe(200);
  const set = ok.headers.get("set-cookie")!;
  const asAda = { cookie: set.split(";")[0]! };
  const trails = await Promise.all(
    replicas.map(async (c) =>
      ((await (await fetch(`${c.baseURL}/api/v1/audit?limit=50`, { headers: asAda })).json()) as { items: Array<{ action: string }> }).items.map((e) => e.action),
    ),
  );
  for (const t of trails) {
    expect(t).toEqual(trails[0]);
    expect(t).toContain("auth.signout");
    expect(t.filter((a) => a === "auth.signin").length).toBeGreaterThanOrEqual(2);
  }
});

test("each replica keeps one Redis subscription, however many live streams", async () => {
  const res = await fetch(`${replicas[0]!.baseURL}/api/v1/auth/signin`, { method: "POST", headers: jsonHeaders(replicas[0]!.baseURL), body: signInBody(PASSWORD) });
  expect(res.status).toBe(200);
  const cookie = res.headers.get("set-cookie")!.split(";")[0]!;
  // nine streams through the balancer: three per replica
  const controllers = Array.from({ length: 9 }, () => new AbortController());
  const streams = await Promise.all(controllers.map((ac) => fetch(`${lb}/api/v1/events`, { headers: { cookie, accept: "text/event-stream" }, signal: ac.signal })));
  try {
    expect(streams.map((s) => s.status)).toEqual(Array(9).fill(200));
    const subscribers = await until("a subscription on every replica", 15_000, async () => {
      const n = cli("CLIENT", "LIST")
        .split("\n")
        .filter((l) => /\bpsub=1\b/.test(l)).length;
      return n >= 3 ? n : null;
    });
    expect(subscribers).toBe(3);
    expect(cli("PUBSUB", "NUMPAT")).toBe("1");
  } finally {
    for (const ac of controllers) ac.abort();
  }
});

test("the watch runs in one replica: one leader, queue history written once, each alert delivered once", async () => {
  // a webhook receiver that counts what it is sent
  const received: Array<{ status: string }> = [];
  const receiver = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      received.push(JSON.parse(body) as { status: string });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  const backend = createRedisBackend(redis!.url(0));
  try {
    // one leader among the three, and it stays one
    const leaders = () => replicas.filter((c) => c.output().includes("leading (lock fleet-console-watch")).length;
    await until("a watch leader", 45_000, async () => leaders() >= 1);
    expect(leaders()).toBe(1);

    // an alert rule, saved through the balancer by the admin
    const res = await fetch(`${lb}/api/v1/auth/signin`, { method: "POST", headers: jsonHeaders(lb), body: signInBody(PASSWORD) });
    if (res.status === 429) await new Promise((r) => setTimeout(r, Number(res.headers.get("retry-after") ?? 1) * 1000 + 100));
    const ok = res.status === 200 ? res : await fetch(`${lb}/api/v1/auth/signin`, { method: "POST", headers: jsonHeaders(lb), body: signInBody(PASSWORD) });
    expect(ok.status).toBe(200);
    const cookie = ok.headers.get("set-cookie")!.split(";")[0]!;
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const rules = {
      webhooks: [{ id: "hook", name: "Receiver", url: hook, format: "json" }],
      rules: [{ id: "overdue", name: "Leases overdue", enabled: true, kind: "overdue_leases", queue: "rq", more_than: 0, webhooks: ["hook"] }],
    };
    const put = await fetch(`${lb}/api/v1/alerts/rules`, { method: "PUT", headers: { ...jsonHeaders(lb), cookie }, body: JSON.stringify(rules) });
    expect(put.status, await put.clone().text()).toBe(200);

    // a reservation past its deadline: the leader fires once, whichever replica it is
    await backend.queuePush("rq", JSON.stringify({ id: "late", payload: {} }));
    await backend.queueReserve("rq", 0, 1);
    await until("the firing delivery", 60_000, async () => received.length >= 1);
    // two more ticks of the leader (its latest figures for the queue move on each tick): a second
    // watch, ticking as often, would have delivered again meanwhile
    const tickOf = async () => (JSON.parse((await backend.historyLatest()).get("rq")?.toString() ?? "{}") as { ts?: number }).ts ?? 0;
    const ticks = new Set<number>([await tickOf()]);
    await until("two more watch ticks", 90_000, async () => {
      ticks.add(await tickOf());
      return ticks.size >= 3;
    });
    expect(received.map((r) => r.status)).toEqual(["firing"]);
    expect(replicas.filter((c) => c.output().includes("alert firing delivered")).length).toBe(1);
    expect(leaders()).toBe(1);
    // the queue's history was recorded (by the leader) and every replica reads the same
    // (asked together; asked again when a tick lands between the three reads)
    const histories = await until("the same history on every replica", 15_000, async () => {
      const all = await Promise.all(
        replicas.map(async (c) => {
          const h = (await (await fetch(`${c.baseURL}/api/v1/queues/rq/history?range=1h`, { headers: { cookie } })).json()) as { points: { processing: Array<number | null> } };
          return JSON.stringify(h.points.processing.filter((v) => v !== null));
        }),
      );
      return all.every((h) => h === all[0]) ? all : null;
    });
    expect((JSON.parse(histories[0]!) as number[]).length).toBeGreaterThanOrEqual(1);
  } finally {
    await backend.close();
    receiver.closeAllConnections();
    await new Promise<void>((r) => receiver.close(() => r()));
  }
});
