// Sections of `pnpm bench:scale` (scale.ts runs them) for the remaining ways one command or
// script could stall Redis (issue 11; issue 19.8 for pools). Each seeds what it needs on the
// bench's private server, measures, prints figures through the bench's `figure`, and removes
// what it seeded:
//
// - reserve: the longest single command while reserving from a queue with 1,000,000 due
//   retries (reserve-6.lua moves a bounded chunk per call), and while reserving a crafted
//   1.2 MB body (a number every two bytes, the costliest shape for the Lua JSON reader; the
//   body is registered in two steps, its id read in Node); target <= 10 ms each;
// - pools: a pool of 100,000 items (1,000 claimed): GET /pools/{name} first page and a later
//   page by cursor, one item, the pool page in Chromium and its "More items" (targets: p50 <
//   50 ms, paint < 1 s), the longest single command meanwhile and during DELETE (<= 10 ms);
//   then, figures only, what Python's own protocol methods cost at that size (poolPut's
//   prune-on-put, poolList, poolClaimAny: they read the whole hash, as backend.py does);
// - survey: server-side time per call (INFO commandstats) of the unbounded-in-one-key
//   commands the console still sends, on the dataset (figures only; see the README).
import { createRequire } from "node:module";
import path from "node:path";

import { createRedisBackend } from "@fleet/backend/redis";
import type { Redis } from "ioredis";

export interface BoundedContext {
  admin: Redis;
  redisPort: number;
  base: string;
  webDir: string;
  figure(what: string, value: string, target: string, ok: boolean | null): void;
  get(base: string, p: string): Promise<{ status: number; ms: number; json: any }>;
  slowest(admin: Redis): Promise<{ us: number; command: string; walkUs: number }>;
}

const COMMAND_MS = 10;
const API_P50_MS = 50;
const PAINT_MS = 1000;
const ms = (n: number) => `${n.toFixed(1)} ms`;
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil(xs.length / 2) - 1)] ?? Number.NaN;

/** SLOWLOG cleared (it keeps commands over 1 ms: the bench sets slowlog-log-slower-than). */
async function resetSlowlog(admin: Redis): Promise<void> {
  await admin.call("SLOWLOG", "RESET");
}

// ---------- reserve

const FILL_SCHEDULED = `
local from, to, t0 = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local batch = {}
for i = from, to - 1 do
  batch[#batch + 1] = t0 + i
  batch[#batch + 1] = '{"id": "r' .. i .. '", "payload": {"n": ' .. i .. '}, "attempts": 1}'
  if #batch == 2000 then redis.call("ZADD", KEYS[1], unpack(batch)); batch = {} end
end
if #batch > 0 then redis.call("ZADD", KEYS[1], unpack(batch)) end
return to - from`;

export async function reserveSection(ctx: BoundedContext): Promise<void> {
  const { admin, figure } = ctx;
  const N = 1_000_000;
  const backend = createRedisBackend(`redis://127.0.0.1:${ctx.redisPort}/0`, { commandTimeoutMs: 60_000 });
  try {
    // 1M retries due over the last ~12 days, soonest first
    const t0 = Date.now() / 1000 - N - 10;
    for (let i = 0; i < N; i += 50_000) await admin.eval(FILL_SCHEDULED, 1, "fleet:queue:retries:scheduled", i, Math.min(N, i + 50_000), t0);
    await resetSlowlog(admin);
    const RESERVES = 200;
    const start = performance.now();
    let order = true;
    for (let i = 0; i < RESERVES; i++) {
      const got = await backend.queueReserve("retries", 0, 300);
      if (got?.toString("utf8").startsWith(`{"id": "r${i}",`) !== true) order = false;
    }
    const wall = (performance.now() - start) / RESERVES;
    const left = await admin.zcard("fleet:queue:retries:scheduled");
    const worst = await ctx.slowest(admin);
    figure(`reserve with 1M due retries: ${RESERVES} reserves, each`, ms(wall), "(figure only)", order ? null : false);
    figure(`...due retries still scheduled after them (1,000 move per reserve)`, left.toLocaleString("en-US"), "(figure only)", left === N - RESERVES * 1000 ? null : false);
    figure(`...longest single command (${worst.command})`, ms(worst.us / 1000), `<= ${COMMAND_MS} ms`, worst.us / 1000 <= COMMAND_MS);
    await admin.unlink("fleet:queue:retries:scheduled", "fleet:queue:retries", "fleet:queue:retries:processing", "fleet:queue:retries:processing:body");

    // a crafted 1.2 MB body: 600k tokens for a JSON reader, its id last
    const crafted = Buffer.from(`{"payload": [${Array(600_000).fill("0").join(",")}], "id": "crafted"}`);
    await admin.rpush("fleet:queue:crafted", crafted);
    await resetSlowlog(admin);
    const t1 = performance.now();
    const got = await backend.queueReserveLease("crafted", 0, 300);
    const took = performance.now() - t1;
    const registered = await admin.zrange("fleet:queue:crafted:processing", "0", "-1");
    const ok = got?.body.equals(crafted) === true && got.lease !== null && registered.length === 1 && registered[0] === "crafted";
    const worstBody = await ctx.slowest(admin);
    figure(`reserve a crafted ${(crafted.length / 1e6).toFixed(1)} MB body (id read in Node), wall`, ms(took), "(figure only)", ok ? null : false);
    figure(`...longest single command (${worstBody.command})`, ms(worstBody.us / 1000), `<= ${COMMAND_MS} ms`, worstBody.us / 1000 <= COMMAND_MS);
    await admin.unlink("fleet:queue:crafted", "fleet:queue:crafted:processing", "fleet:queue:crafted:processing:body");
  } finally {
    await backend.close();
  }
}

// ---------- pools

const FILL_POOL = `
local from, to = tonumber(ARGV[1]), tonumber(ARGV[2])
local batch = {}
for i = from, to - 1 do
  batch[#batch + 1] = string.format("item-%06d", i)
  batch[#batch + 1] = '{"p": "eyJjb29raWUiOiAiYWJjIiwgInVhIjogIk1vemlsbGEvNS4wIn0=", "t": {"region": "eu", "n": ' .. i .. '}, "x": null}'
  if #batch == 2000 then redis.call("HSET", KEYS[1], unpack(batch)); batch = {} end
end
if #batch > 0 then redis.call("HSET", KEYS[1], unpack(batch)) end
return to - from`;

/** The little of Playwright's API this section uses (the package is the e2e workspace's). */
interface PwPage {
  goto(url: string, o: { waitUntil: "commit" }): Promise<unknown>;
  getByRole(role: string, o: { name: string }): { click(): Promise<void>; waitFor(o: { timeout: number }): Promise<void> };
  getByTestId(id: string): { textContent(): Promise<string | null>; waitFor(o: { timeout: number }): Promise<void> };
  waitForFunction(fn: (before: string) => boolean, arg: string, o: { timeout: number }): Promise<unknown>;
}
interface Playwright {
  chromium: {
    launch(o: { executablePath: string; headless: boolean }): Promise<{
      newContext(o: { locale: string; viewport: { width: number; height: number } }): Promise<{ newPage(): Promise<PwPage>; close(): Promise<void> }>;
      close(): Promise<void>;
    }>;
  };
}

async function poolPage(ctx: BoundedContext, name: string, size: number): Promise<void> {
  const CHROMIUM = process.env.BENCH_CHROMIUM ?? "/usr/bin/chromium";
  const requireFromE2e = createRequire(path.join(ctx.webDir, "..", "..", "e2e", "package.json"));
  const { chromium } = requireFromE2e("@playwright/test") as Playwright;
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true });
  try {
    const context = await browser.newContext({ locale: "en-US", viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const loaded = `of ${size.toLocaleString("en-US")} loaded`;
    const paint: number[] = [];
    const more: number[] = [];
    for (let round = 0; round <= 3; round++) {
      const t0 = performance.now();
      await page.goto(`${ctx.base}/pools/${encodeURIComponent(name)}`, { waitUntil: "commit" });
      await page.getByRole("button", { name: "More items" }).waitFor({ timeout: 30_000 });
      const before = (await page.getByTestId("pool-loaded").textContent()) ?? "";
      const painted = performance.now() - t0;
      if (!before.includes(loaded)) throw new Error(`the pool page says "${before}", not "... ${loaded}"`);
      const t1 = performance.now();
      await page.getByRole("button", { name: "More items" }).click();
      await page.waitForFunction((b) => document.querySelector('[data-testid="pool-loaded"]')?.textContent !== b, before, { timeout: 30_000 });
      if (round > 0) {
        paint.push(painted);
        more.push(performance.now() - t1);
      }
    }
    ctx.figure(`pool page (100k items) in Chromium: first page painted`, ms(Math.min(...paint)), `< ${PAINT_MS} ms`, Math.min(...paint) < PAINT_MS);
    ctx.figure(`..."More items" to the next page on screen`, ms(Math.min(...more)), `< ${PAINT_MS} ms`, Math.min(...more) < PAINT_MS);
    await context.close();
  } finally {
    await browser.close();
  }
}

export async function poolsSection(ctx: BoundedContext): Promise<void> {
  const { admin, figure } = ctx;
  const N = 100_000;
  const name = "big-cookies";
  const hash = `fleet:pool:${name}`;
  for (let i = 0; i < N; i += 50_000) await admin.eval(FILL_POOL, 1, hash, i, Math.min(N, i + 50_000));
  const claims = admin.pipeline();
  for (let i = 0; i < N; i += 100) claims.set(`${hash}:claim:item-${String(i).padStart(6, "0")}`, "1", "EX", 3600);
  await claims.exec();
  // the console learns the pool from the discovery (it was written behind its back)
  for (let i = 0; i < 200 && (await ctx.get(ctx.base, `/api/v1/pools/${name}?limit=1`)).status !== 200; i++) await new Promise((r) => setTimeout(r, 100));
  await resetSlowlog(admin);
  const timed = async (p: string): Promise<{ p50: number; json: any; bad: number }> => {
    for (let i = 0; i < 3; i++) await ctx.get(ctx.base, p);
    const samples: number[] = [];
    let bad = 0;
    let json: any = null;
    for (let i = 0; i < 20; i++) {
      const res = await ctx.get(ctx.base, p);
      if (res.status !== 200) bad++;
      samples.push(res.ms);
      json = res.json;
    }
    return { p50: p50(samples), json, bad };
  };
  const first = await timed(`/api/v1/pools/${name}?limit=200`);
  const firstOk = first.bad === 0 && first.json.total === N && typeof first.json.next_cursor === "string";
  figure(`GET /pools/{100k items}?limit=200 (first page) p50`, ms(first.p50), `< ${API_P50_MS} ms`, firstOk && first.p50 < API_P50_MS);
  // a cursor some way in
  let cursor = first.json.next_cursor as string;
  for (let i = 0; i < 50 && cursor; i++) cursor = (await ctx.get(ctx.base, `/api/v1/pools/${name}?limit=200&cursor=${cursor}`)).json.next_cursor;
  const later = await timed(`/api/v1/pools/${name}?limit=200&cursor=${cursor}`);
  figure(`...a later page by cursor, p50`, ms(later.p50), `< ${API_P50_MS} ms`, later.bad === 0 && later.p50 < API_P50_MS);
  const one = await timed(`/api/v1/pools/${name}/items/item-050000`);
  figure(`GET /pools/{100k items}/items/{id} p50`, ms(one.p50), `< ${API_P50_MS} ms`, one.bad === 0 && one.p50 < API_P50_MS);
  await poolPage(ctx, name, N);
  const reads = await ctx.slowest(admin);
  figure(`...longest single command of these reads (${reads.command})`, ms(reads.us / 1000), `<= ${COMMAND_MS} ms`, reads.us / 1000 <= COMMAND_MS);

  // Python's protocol methods, at this size (figures only: they mirror backend.py)
  const backend = createRedisBackend(`redis://127.0.0.1:${ctx.redisPort}/0`, { commandTimeoutMs: 60_000 });
  try {
    for (const [what, run] of [
      ["poolPut (prunes on every put: HGETALL)", () => backend.poolPut(name, "item-new", "x", { region: "eu" })],
      ["poolList (HGETALL + a PTTL each)", () => backend.poolList(name)],
      ["poolClaimAny (poolList, then SET NX)", () => backend.poolClaimAny(name, { region: "eu" }, 60)],
    ] as const) {
      await resetSlowlog(admin);
      const t0 = performance.now();
      await run();
      const wall = performance.now() - t0;
      const worst = await ctx.slowest(admin);
      figure(`Python protocol at 100k: ${what}, wall`, ms(wall), "(figure only)", null);
      figure(`...its longest single command (${worst.command})`, ms(worst.us / 1000), "(figure only)", null);
    }
  } finally {
    await backend.close();
  }

  await resetSlowlog(admin);
  const t0 = performance.now();
  const del = await fetch(`${ctx.base}/api/v1/pools/${name}`, { method: "DELETE" });
  const delJson = (await del.json()) as { deleted?: boolean; items?: number };
  const delMs = performance.now() - t0;
  const claimKeys = Array.from({ length: N / 100 }, (_, i) => `${hash}:claim:item-${String(i * 100).padStart(6, "0")}`);
  const leftClaims = await admin.exists(...claimKeys);
  const delOk = del.status === 200 && delJson.deleted === true && delJson.items === N + 1 && (await admin.exists(hash)) === 0;
  figure(`DELETE /pools/{100k items, 1,000 claims}, wall`, ms(delMs), "(figure only)", delOk ? null : false);
  const worstDel = await ctx.slowest(admin);
  figure(`...longest single command (${worstDel.command})`, ms(worstDel.us / 1000), `<= ${COMMAND_MS} ms`, worstDel.us / 1000 <= COMMAND_MS);
  if (leftClaims > 0) figure("...claim keys left behind", String(leftClaims), "0", false);
}

// ---------- survey

/** Server-side microseconds per call of `cmd` (INFO commandstats after CONFIG RESETSTAT), over `n` calls. */
async function perCall(admin: Redis, cmd: string, n: number, send: () => Promise<unknown>): Promise<number> {
  await admin.config("RESETSTAT");
  for (let i = 0; i < n; i++) await send();
  const text = (await admin.info("commandstats")) as string;
  const m = new RegExp(`cmdstat_${cmd}:calls=(\\d+),usec=(\\d+),usec_per_call=([\\d.]+)`).exec(text);
  return m ? Number(m[3]) : Number.NaN;
}

export async function surveySection(ctx: BoundedContext): Promise<void> {
  const { admin, figure } = ctx;
  const us = (n: number) => `${(n / 1000).toFixed(2)} ms`;
  // the worker index of 10,000 (GET /workers, every 10th hub tick, error groups, alerts)
  figure("survey: SMEMBERS wkrs:all (10k workers), per call", us(await perCall(admin, "smembers", 20, () => admin.smembersBuffer("wkrs:all"))), "(figure only)", null);
  // pool summaries read a pool of up to 5,000 items whole (lists, /metrics, every hub tick)
  const pool = "fleet:pool:survey-5k";
  for (const [label, bytes] of [
    ["100 B", 100],
    ["1 KB", 1000],
    ["4 KB", 4000],
  ] as const) {
    const p = admin.pipeline();
    const payload = Buffer.alloc(bytes, 0x61).toString("base64");
    for (let i = 0; i < 5000; i++) p.hset(pool, `i${i}`, `{"p": "${payload}", "t": {}, "x": null}`);
    await p.exec();
    figure(`survey: HGETALL of a 5,000-item pool of ${label} payloads, per call`, us(await perCall(admin, "hgetall", 10, () => admin.hgetallBuffer(pool))), "(figure only)", null);
    await admin.unlink(pool);
  }
  // a big pool's summary: a sample of 1,000
  for (let i = 0; i < 100_000; i += 50_000) await admin.eval(FILL_POOL, 1, pool, i, Math.min(100_000, i + 50_000));
  figure(
    "survey: HRANDFIELD 1000 WITHVALUES of a 100k pool, per call",
    us(await perCall(admin, "hrandfield", 20, () => admin.hrandfieldBuffer(pool, 1000, "WITHVALUES"))),
    "(figure only)",
    null,
  );
  await admin.unlink(pool);
  // error groups: the newest 1,000 dead letters of a queue of 200k
  // (the cost of LRANGE 0 999 does not depend on the list's length: the 1M pending list stands in)
  figure(
    "survey: LRANGE 0 999 of a long list (error groups, per queue), per call",
    us(await perCall(admin, "lrange", 20, () => admin.lrangeBuffer("fleet:queue:bench", 0, 999))),
    "(figure only)",
    null,
  );
  // the watch's queue probe: a body not found scans maxScan (100,000) entries of a 1M list (one per script now)
  figure(
    "survey: LPOS <absent body> MAXLEN 100000 on the 1M list (watch probe), per call",
    us(await perCall(admin, "lpos", 10, () => admin.call("LPOS", "fleet:queue:bench", "not a body of it", "MAXLEN", "100000"))),
    "(figure only)",
    null,
  );
  figure("survey: HGETALL fleet:catalog, per call", us(await perCall(admin, "hgetall", 20, () => admin.hgetallBuffer("fleet:catalog"))), "(figure only)", null);
}
