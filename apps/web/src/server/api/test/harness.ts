// Route-test harness: every suite runs once against the in-memory backend and once
// against a real redis-server (REDIS_TEST_URL, one database per test file, flushed
// before each test). Requests go through the exported route handlers, as Next calls them.
import { startMonitor } from "@/server/test/monitor";
import { createHash, randomBytes } from "node:crypto";

import type { Backend, BusMessage } from "@fleet/backend";
import type { MemoryBackend } from "@fleet/backend/memory";
import { Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect } from "vitest";

import { closeBackend, getBackend, getDiscovery } from "@/server/backend";
import { resetServerEnv } from "@/server/env";

export type Handler = (request: Request, context?: { params: Promise<Record<string, string>> }) => Promise<Response>;

export interface CallOptions {
  body?: unknown;
  /** Sent as is (malformed JSON, oversized bodies). */
  rawBody?: string | Uint8Array;
  headers?: Record<string, string>;
  /** The answer is a stream of JSON lines when 200 (the search). */
  ndjson?: boolean;
}

export interface CallResult {
  status: number;
  headers: Headers;
  // `any`: answers are checked field by field
  json: any;
  ms: number;
}

export interface KeySnapshot {
  type: string;
  content: string;
  hasTtl: boolean;
}

export interface Harness {
  readonly kind: "memory" | "redis";
  readonly backend: Backend;
  /** Writes raw values straight into storage, bypassing the backend's encoders (corrupt data). */
  readonly plant: Planter;
  call(handler: Handler, method: string, path: string, opts?: CallOptions): Promise<CallResult>;
  snapshot(): Promise<Map<string, KeySnapshot>>;
  /** Runs `fn` and asserts that no key changed (type, content, TTL presence). */
  unchanged(fn: () => Promise<unknown>): Promise<void>;
  /**
   * Lets the console's name discovery walk the key space once more: what `plant` wrote
   * (another application's writes, as far as the console knows) is listed from then on,
   * as it would be within the discovery's bound.
   */
  discovered(): Promise<void>;
  /**
   * Redis only (null on memory): the commands, lower-cased with their arguments, that
   * reached this test file's database while `fn` ran (MONITOR, filtered by database).
   */
  monitor(fn: () => Promise<unknown>): Promise<string[][] | null>;
}

export interface Planter {
  set(key: string, value: string | Buffer): Promise<void>;
  hset(key: string, field: string, value: string | Buffer): Promise<void>;
  zadd(key: string, score: number, member: string | Buffer): Promise<void>;
  rpush(key: string, ...values: Array<string | Buffer>): Promise<void>;
  sadd(key: string, ...members: string[]): Promise<void>;
  get(key: string): Promise<Buffer | null>;
  lrange(key: string): Promise<Buffer[]>;
  exists(key: string): Promise<boolean>;
  /** Many writes in pipelined batches (seeding thousands of workers). */
  bulk(ops: BulkOp[]): Promise<void>;
}

export type BulkOp = ["set", string, string] | ["hset", string, Record<string, string>] | ["sadd", string, string];

const REDIS_TEST_URL = process.env.REDIS_TEST_URL;

export function redisTestUrl(db: number): string {
  if (!REDIS_TEST_URL) {
    throw new Error("REDIS_TEST_URL is not set: route tests need a disposable redis-server, e.g. redis://127.0.0.1:6390/0");
  }
  const u = new URL(REDIS_TEST_URL);
  u.pathname = `/${db}`;
  return u.toString();
}

export async function switchBackendUrl(url: string): Promise<Backend> {
  process.env.FLEET_BACKEND_URL = url;
  resetServerEnv();
  return getBackend();
}

let memoryCounter = 0;

/**
 * Registers `suites` twice: `[memory]` and `[redis]`. `db` is this file's own Redis
 * database; two test files never share one, so files may run in parallel.
 */
export function describeRoutes(db: number, suites: Array<(h: Harness) => void>): void {
  for (const kind of ["memory", "redis"] as const) {
    describe(`[${kind}]`, () => {
      const h = new TestHarness(kind, db);
      beforeAll(async () => {
        if (kind === "redis") {
          h.admin = new Redis(redisTestUrl(db), { lazyConnect: true, maxRetriesPerRequest: 1 });
          await h.admin.connect();
        }
      });
      beforeEach(async () => {
        await h.reset();
      });
      afterAll(async () => {
        await closeBackend();
        delete process.env.FLEET_BACKEND_URL;
        resetServerEnv();
        await h.admin?.quit();
      });
      for (const suite of suites) suite(h);
    });
  }
}

class TestHarness implements Harness {
  admin: Redis | null = null;
  private current: Backend | null = null;

  constructor(
    readonly kind: "memory" | "redis",
    private readonly db: number,
  ) {}

  get backend(): Backend {
    if (!this.current) throw new Error("no backend yet: reset() runs in beforeEach");
    return this.current;
  }

  async reset(): Promise<void> {
    if (this.kind === "redis") {
      await this.admin!.flushdb();
      this.current = await switchBackendUrl(redisTestUrl(this.db));
      // the same console across tests: its discovery must not remember the last test's names
      await this.discovered();
    } else {
      // a fresh in-memory backend per test: a new URL makes getBackend() open a new one
      memoryCounter += 1;
      this.current = await switchBackendUrl(`memory://routes-${process.pid}-${memoryCounter}`);
    }
    expect(this.current.kind).toBe(this.kind);
  }

  private get mem(): MemoryBackend {
    return this.backend as MemoryBackend;
  }

  get plant(): Planter {
    if (this.kind === "redis") {
      const r = this.admin!;
      return {
        set: async (k, v) => void (await r.set(k, v)),
        hset: async (k, f, v) => void (await r.hset(k, f, v)),
        zadd: async (k, s, m) => void (await r.zadd(k, String(s), m)),
        rpush: async (k, ...v) => void (await r.rpush(k, ...v)),
        sadd: async (k, ...m) => void (await r.sadd(k, ...m)),
        get: (k) => r.getBuffer(k),
        lrange: (k) => r.lrangeBuffer(k, 0, -1),
        exists: async (k) => (await r.exists(k)) > 0,
        bulk: async (ops) => {
          for (let i = 0; i < ops.length; i += 5000) {
            const p = r.pipeline();
            for (const op of ops.slice(i, i + 5000)) {
              if (op[0] === "set") p.set(op[1], op[2]);
              else if (op[0] === "hset") p.hset(op[1], op[2]);
              else p.sadd(op[1], op[2]);
            }
            await p.exec();
          }
        },
      };
    }
    const s = this.mem.raw;
    return {
      set: async (k, v) => void s.set(k, v),
      hset: async (k, f, v) => void s.hset(k, { [f]: v }),
      zadd: async (k, sc, m) => void s.zadd(k, sc, m),
      rpush: async (k, ...v) => void s.rpush(k, ...v),
      sadd: async (k, ...m) => void s.sadd(k, ...m),
      get: async (k) => (s.type(k) === "string" ? s.get(k) : null),
      lrange: async (k) => (s.type(k) === "list" ? s.lrange(k) : []),
      exists: async (k) => s.exists(k),
      bulk: async (ops) => {
        for (const op of ops) {
          if (op[0] === "set") s.set(op[1], op[2]);
          else if (op[0] === "hset") s.hset(op[1], op[2]);
          else s.sadd(op[1], op[2]);
        }
      },
    };
  }

  async call(handler: Handler, method: string, path: string, opts: CallOptions = {}): Promise<CallResult> {
    const headers = new Headers(opts.headers);
    let body: BodyInit | undefined;
    if (opts.rawBody !== undefined) body = opts.rawBody as BodyInit;
    else if (opts.body !== undefined) body = JSON.stringify(opts.body);
    if (body !== undefined && !headers.has("content-type")) headers.set("content-type", "application/json");
    const request = new Request(`http://localhost/api/v1${path}`, { method, headers, body });
    const started = performance.now();
    const res = await handler(request, { params: Promise.resolve({}) });
    const text = await res.text();
    const ms = performance.now() - started;
    if (opts.ndjson && res.status === 200) {
      // a stream of JSON lines: `json` is the list of parsed lines
      expect(res.headers.get("content-type"), `${method} ${path}`).toBe("application/x-ndjson; charset=utf-8");
      const lines = text.split("\n").filter((l) => l !== "");
      return { status: res.status, headers: res.headers, json: lines.map((l) => JSON.parse(l) as unknown), ms };
    }
    expect(res.headers.get("content-type"), `${method} ${path}`).toBe("application/json; charset=utf-8");
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new Error(`${method} ${path} answered ${res.status} with a body that is not JSON: ${text.slice(0, 200)}`);
    }
    if (res.status >= 400) {
      // every error has the one envelope
      expect(json, `${method} ${path}`).toMatchObject({ error: { code: expect.any(String), message: expect.any(String) } });
    }
    return { status: res.status, headers: res.headers, json, ms };
  }

  async monitor(fn: () => Promise<unknown>): Promise<string[][] | null> {
    if (this.kind !== "redis") {
      await fn();
      return null;
    }
    const seen: string[][] = [];
    const marker = `monitor-end-${Math.random()}`;
    let ended: () => void = () => undefined;
    const end = new Promise<void>((resolve) => (ended = resolve));
    const m = await startMonitor(redisTestUrl(this.db), (c) => {
      if (c.db !== this.db) return;
      if (c.args[0] === "echo" && c.args[1] === marker) ended();
      else seen.push(c.args);
    });
    try {
      await fn();
      // everything fn sent is seen once the marker sent after it is
      await this.admin!.echo(marker);
      await end;
    } finally {
      m.close();
    }
    return seen;
  }

  async discovered(): Promise<void> {
    await (await getDiscovery()).refresh();
  }

  async snapshot(): Promise<Map<string, KeySnapshot>> {
    return this.kind === "redis" ? snapshotRedis(this.admin!) : snapshotMemory(this.mem);
  }

  async unchanged(fn: () => Promise<unknown>): Promise<void> {
    const before = await this.snapshot();
    await fn();
    const after = await this.snapshot();
    expect(Object.fromEntries(after)).toEqual(Object.fromEntries(before));
  }
}

const hex = (b: Buffer) => b.toString("base64");

async function snapshotRedis(r: Redis): Promise<Map<string, KeySnapshot>> {
  const keys: string[] = [];
  let cursor = "0";
  do {
    const [next, batch] = await r.scan(cursor, "COUNT", 1000);
    keys.push(...batch);
    cursor = next;
  } while (cursor !== "0");
  keys.sort();
  const meta = r.pipeline();
  for (const k of keys) meta.type(k).pttl(k);
  const metaRes = (await meta.exec()) ?? [];
  const types = keys.map((_, i) => String(metaRes[2 * i]?.[1]));
  const ttls = keys.map((_, i) => Number(metaRes[2 * i + 1]?.[1]));
  const content = r.pipeline();
  keys.forEach((k, i) => {
    switch (types[i]) {
      case "string":
        content.getBuffer(k);
        break;
      case "hash":
        content.hgetallBuffer(k);
        break;
      case "set":
        content.smembersBuffer(k);
        break;
      case "zset":
        content.zrangeBuffer(k, "0", "-1", "WITHSCORES");
        break;
      case "list":
        content.lrangeBuffer(k, 0, -1);
        break;
      default:
        content.type(k);
    }
  });
  const contentRes = (await content.exec()) ?? [];
  const out = new Map<string, KeySnapshot>();
  keys.forEach((k, i) => {
    const v = contentRes[i]?.[1];
    let text: string;
    switch (types[i]) {
      case "string":
        text = hex(v as Buffer);
        break;
      case "hash":
        text = Object.entries(v as Record<string, Buffer>)
          .map(([f, x]) => `${f}=${hex(x)}`)
          .sort()
          .join(",");
        break;
      case "set":
        text = (v as Buffer[]).map(hex).sort().join(",");
        break;
      default:
        text = (v as Buffer[]).map(hex).join(",");
    }
    out.set(k, { type: types[i]!, content: text, hasTtl: ttls[i]! > 0 });
  });
  return out;
}

async function snapshotMemory(b: MemoryBackend): Promise<Map<string, KeySnapshot>> {
  const s = b.raw;
  const out = new Map<string, KeySnapshot>();
  for (const k of s.keys()) {
    const type = s.type(k);
    let text: string;
    switch (type) {
      case "string":
        text = hex(s.get(k)!);
        break;
      case "hash":
        text = [...s.hgetall(k)]
          .map(([f, x]) => `${f}=${hex(x)}`)
          .sort()
          .join(",");
        break;
      case "set":
        text = s.smembers(k).sort().join(",");
        break;
      case "zset":
        text = s
          .zrange(k)
          .map((m) => `${hex(m.member)}@${m.score}`)
          .join(",");
        break;
      case "list":
        text = s.lrange(k).map(hex).join(",");
        break;
      default:
        text = "";
    }
    out.set(k, { type, content: text, hasTtl: s.pttl(k) > 0 });
  }
  return out;
}

export function sha1(b: Buffer | string): string {
  return createHash("sha1").update(b).digest("hex");
}

/** A JSON body just over 1 MiB. */
export function oversizedBody(): string {
  return JSON.stringify({ payload: { blob: "x".repeat(1024 * 1024 + 10) } });
}

/** Unix seconds. */
export function now(): number {
  return Date.now() / 1000;
}

/**
 * Collects bus messages published while `fn` runs. Bounded by conditions, not sleeps: the
 * subscription is live once a marker published after it arrives, and every message `fn`
 * published (through the same backend, so the same connection, in order) has arrived once a
 * second marker published after `fn` has.
 */
export async function published(h: Harness, fn: () => Promise<unknown>): Promise<Array<{ topic: string; payload: unknown }>> {
  const got: BusMessage[] = [];
  const marker = `test.marker.${randomBytes(6).toString("hex")}`;
  const sub = await h.backend.subscribeEvents((m) => got.push(m));
  const arrived = async (what: string) => {
    const deadline = Date.now() + 30_000;
    while (!got.some((m) => m.topic === marker && m.payload.toString("utf8") === what)) {
      if (Date.now() > deadline) throw new Error(`the bus marker '${what}' did not arrive within 30 s`);
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  try {
    await h.backend.eventPublish(marker, "subscribed");
    await arrived("subscribed");
    got.length = 0;
    await fn();
    await h.backend.eventPublish(marker, "done");
    await arrived("done");
  } finally {
    await sub.close();
  }
  return got.filter((m) => m.topic !== marker).map((m) => ({ topic: m.topic, payload: JSON.parse(m.payload.toString("utf8")) as unknown }));
}
