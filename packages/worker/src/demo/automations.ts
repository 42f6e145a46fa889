// The demo's automations. They do no real work: they sleep, fail at random and touch the
// same Redis primitives a real scraper, cookie farm and enricher would, so the console has
// something true to show.
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { defineAutomation, runtimeConfigShape } from "../automation";

export const COOKIE_POOL = "cf-cookies";
export const SITES = ["shop.example", "news.example", "api.example", "forum.example"] as const;
const REGIONS = ["eu", "us", "ap"] as const;

/** Decides, per worker and moment, whether a run should crash (the flapping host). */
export type FaultPlan = (workerId: string) => string | null;

const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)]!;
const between = (lo: number, hi: number) => lo + Math.random() * (hi - lo);

// ------------------------------------------------------------------ scraper (batch)

export const ScraperConfigSchema = z
  .object({
    ...runtimeConfigShape,
    mode: z
      .enum(["fast", "thorough", "stealth"])
      .default("fast")
      .meta({ title: "Mode", description: "fast: one request; thorough: follow links up to the task's depth; stealth: slower, human-like pacing." }),
    headless: z.boolean().default(true).meta({ title: "Headless browser", description: "Run the browser without a window." }),
    timeout_ms: z.number().int().min(1000).max(120_000).default(15_000).meta({ title: "Task timeout (ms)", description: "A run longer than this fails and is retried." }),
    use_cookie_pool: z.boolean().default(true).meta({ title: "Use the cf-cookies pool", description: "Claim a clearance cookie for the site before fetching." }),
    failure_rate: z.number().min(0).max(1).default(0.12).meta({ title: "Injected failure rate", description: "Demo only: share of runs that fail at random." }),
    user_agent: z.string().max(300).default("Mozilla/5.0 (X11; Linux x86_64) FleetDemo/1.0").meta({ title: "User agent" }),
  })
  .meta({ title: "Scraper", description: "Fetches pages from the scraper queue and emits what it found." });

export const ScrapeTaskSchema = z
  .object({
    url: z.url().meta({ title: "URL", description: "Page to fetch." }),
    depth: z.number().int().min(0).max(5).default(0).meta({ title: "Link depth" }),
    slow: z.boolean().default(false).meta({ title: "Slow page", description: "Demo only: takes seconds instead of milliseconds." }),
  })
  .meta({ title: "Scrape task" });

export const ScrapeOutputSchema = z
  .object({
    url: z.string(),
    status: z.number().int(),
    bytes: z.number().int(),
    title: z.string(),
    elapsed_ms: z.number().int(),
    cookie: z.string().nullable(),
  })
  .meta({ title: "Scraped page" });

const SCRAPE_ERRORS = [
  "HTTP 503 Service Unavailable from upstream",
  "net::ERR_CONNECTION_RESET",
  "captcha challenge not solved within 10 s",
  "TimeoutError: navigation timeout of 8000 ms exceeded",
  "HTTP 429 Too Many Requests",
];

export function scraperAutomation() {
  return defineAutomation({
    type: "scraper",
    kind: "batch",
    description: "Fetches pages from the scraper queue and emits what it found.",
    config: ScraperConfigSchema,
    taskPayload: ScrapeTaskSchema,
    output: ScrapeOutputSchema,
    async run(ctx, task) {
      const started = Date.now();
      const { url, slow, depth } = task.payload;
      const site = new URL(url).hostname;
      let cookie: Awaited<ReturnType<ReturnType<typeof ctx.pool>["claim"]>> = null;
      if (ctx.config.use_cookie_pool) cookie = await ctx.pool(COOKIE_POOL).claim({ where: { site }, holdSeconds: 30 });
      try {
        const factor = ctx.config.mode === "thorough" ? 1 + depth : ctx.config.mode === "stealth" ? 2.5 : 1;
        await ctx.sleep((slow ? between(2000, 5000) : between(40, 350)) * factor);
        // "/broken/" pages never succeed: they exhaust their attempts and land in the DLQ
        if (url.includes("/broken/")) throw new Error(`HTTP 500 Internal Server Error at ${url}`);
        if (Math.random() < ctx.config.failure_rate) throw new Error(pick(SCRAPE_ERRORS));
        await ctx.counter("scraper:pages").incr();
        return {
          url,
          status: 200,
          bytes: Math.round(between(4_000, 400_000)),
          title: `${site} — ${url.split("/").pop() || "home"}`,
          elapsed_ms: Date.now() - started,
          cookie: cookie?.id ?? null,
        };
      } finally {
        await cookie?.release();
      }
    },
  });
}

// ------------------------------------------------------------------ cf-cookies (continuous)

export const CookiesConfigSchema = z
  .object({
    ...runtimeConfigShape,
    role: z.enum(["both", "producer", "consumer"]).default("both").meta({ title: "Role", description: "both: slot 0 mints cookies, the other slots consume them." }),
    target_pool_size: z
      .number()
      .int()
      .min(1)
      .max(500)
      .default(30)
      .meta({ title: "Target pool size", description: "The producer keeps at least this many live cookies in the pool." }),
    cookie_ttl_seconds: z.number().int().min(30).max(86_400).default(300).meta({ title: "Cookie lifetime (seconds)", description: "Expiry of each minted cookie." }),
    solver: z.enum(["turnstile", "js-challenge", "managed"]).default("turnstile").meta({ title: "Challenge solver" }),
    headless: z.boolean().default(true).meta({ title: "Headless browser" }),
    hold_seconds: z
      .number()
      .int()
      .min(1)
      .max(600)
      .default(20)
      .meta({ title: "Claim hold (seconds)", description: "How long a consumer's claim lasts before it expires on its own." }),
  })
  .meta({ title: "CF cookies", description: "Keeps the cf-cookies pool topped up with clearance cookies and exercises them." });

export const CookieEventSchema = z
  .object({
    action: z.enum(["minted", "used", "burned"]),
    item_id: z.string(),
    site: z.string(),
    pool_live: z.number().int().optional(),
  })
  .meta({ title: "Cookie event" });

export function cfCookiesAutomation(faults: FaultPlan = () => null) {
  return defineAutomation({
    type: "cf-cookies",
    kind: "continuous",
    description: "Keeps the cf-cookies pool topped up with clearance cookies and exercises them.",
    config: CookiesConfigSchema,
    output: CookieEventSchema,
    async run(ctx) {
      const fault = faults(ctx.workerId);
      if (fault) {
        await ctx.sleep(between(50, 200));
        throw new Error(fault);
      }
      const pool = ctx.pool(COOKIE_POOL);
      const producer = ctx.config.role === "producer" || (ctx.config.role === "both" && ctx.slot === 0);
      if (producer) {
        const live = (await pool.list()).length;
        if (live >= ctx.config.target_pool_size) {
          await ctx.sleep(between(1500, 3000));
          return undefined;
        }
        // solving a challenge takes a while
        await ctx.sleep(between(300, 900));
        const site = pick(SITES);
        const id = `ck-${randomBytes(5).toString("hex")}`;
        const cookie = { cf_clearance: randomBytes(24).toString("base64url"), user_agent: "Mozilla/5.0 FleetDemo/1.0" };
        await pool.put(id, JSON.stringify(cookie), {
          tags: { site, region: pick(REGIONS), solver: ctx.config.solver, minted_by: ctx.workerId },
          ttlSeconds: Math.round(ctx.config.cookie_ttl_seconds * between(0.6, 1.2)),
        });
        await ctx.counter("cf-cookies:minted").incr();
        return { action: "minted" as const, item_id: id, site, pool_live: live + 1 };
      }
      const site = pick(SITES);
      const item = await pool.claim({ where: { site }, holdSeconds: ctx.config.hold_seconds });
      if (!item) {
        await ctx.sleep(between(500, 1500));
        return undefined;
      }
      await ctx.sleep(between(400, 2500));
      if (Math.random() < 0.08) {
        // the site rejected it: a burned cookie leaves the pool
        await item.remove();
        await ctx.counter("cf-cookies:burned").incr();
        return { action: "burned" as const, item_id: item.id, site };
      }
      await item.release();
      await ctx.sleep(between(500, 2000));
      return { action: "used" as const, item_id: item.id, site };
    },
  });
}

// ------------------------------------------------------------------ enricher (continuous, lock + counters + kv)

export const EnricherConfigSchema = z
  .object({
    ...runtimeConfigShape,
    provider: z.enum(["internal", "clearbit", "mock"]).default("internal").meta({ title: "Data provider" }),
    cache_ttl_seconds: z
      .number()
      .int()
      .min(10)
      .max(86_400)
      .default(120)
      .meta({ title: "Cache lifetime (seconds)", description: "How long an enriched record stays in kv before it is fetched again." }),
    refresh_every_seconds: z
      .number()
      .int()
      .min(5)
      .max(3600)
      .default(20)
      .meta({ title: "Index refresh period (seconds)", description: "One enricher (holding the lock) rebuilds the shared index this often." }),
    dry_run: z.boolean().default(false).meta({ title: "Dry run", description: "Look up but do not write enriched records." }),
  })
  .meta({ title: "Enricher", description: "Enriches company domains through a kv cache; one instance at a time rebuilds the shared index under a lock." });

export const EnrichOutputSchema = z
  .object({
    domain: z.string(),
    source: z.enum(["cache", "provider"]),
    employees: z.number().int(),
    industry: z.string(),
  })
  .meta({ title: "Enriched company" });

const DOMAINS = [
  "acme.test",
  "globex.test",
  "initech.test",
  "umbrella.test",
  "hooli.test",
  "piedpiper.test",
  "stark.test",
  "wayne.test",
  "wonka.test",
  "tyrell.test",
  "cyberdyne.test",
  "soylent.test",
];
const INDUSTRIES = ["retail", "media", "software", "logistics", "biotech", "energy"];

export function enricherAutomation() {
  return defineAutomation({
    type: "enricher",
    kind: "continuous",
    description: "Enriches company domains through a kv cache; one instance at a time rebuilds the shared index under a lock.",
    config: EnricherConfigSchema,
    output: EnrichOutputSchema,
    async run(ctx) {
      const kv = ctx.kv("enricher");
      const index = await kv.getJson<{ updated_at: number }>("index");
      if (!index || ctx.now() - index.updated_at > ctx.config.refresh_every_seconds) {
        // every enricher notices the stale index; the lock lets exactly one rebuild it
        const rebuilt = await ctx.withLock("enricher:index-rebuild", { holdSeconds: 15, waitSeconds: 0 }, async () => {
          await ctx.sleep(between(800, 2000));
          await kv.setJson("index", { updated_at: ctx.now(), domains: DOMAINS.length, rebuilt_by: ctx.workerId });
          await ctx.counter("enricher:index_rebuilds").incr();
        });
        if (rebuilt.acquired) return undefined;
      }
      const domain = pick(DOMAINS);
      const cached = await kv.getJson<{ employees: number; industry: string }>(`company:${domain}`);
      await ctx.sleep(between(300, 1200));
      if (cached) {
        await ctx.counter("enricher:cache_hits").incr();
        return { domain, source: "cache" as const, employees: cached.employees, industry: cached.industry };
      }
      await ctx.sleep(between(400, 1500));
      const record = { employees: Math.round(between(5, 50_000)), industry: pick(INDUSTRIES) };
      if (!ctx.config.dry_run) await kv.setJson(`company:${domain}`, record, ctx.config.cache_ttl_seconds);
      await ctx.counter("enricher:cache_misses").incr();
      return { domain, source: "provider" as const, ...record };
    },
  });
}
