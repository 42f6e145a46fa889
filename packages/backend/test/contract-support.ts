// What the contract suite's parts share: the fixture each implementation gives (a fresh
// backend plus raw access to the same key space, RawPlanter), the state the running test sees,
// and small helpers. The parts are ./contract-<domain>.ts, put together by ./contract.ts.
import { pyJsonBytes } from "../src/pyjson";
import type { Backend, BytesLike } from "../src/types";

export type RawType = "none" | "string" | "hash" | "set" | "zset" | "list";

/** Raw writes and reads under Fleet's key names, bypassing the Backend. */
export interface RawPlanter {
  set(key: string, value: BytesLike, opts?: { ttlSeconds?: number }): Promise<void>;
  hset(key: string, field: string, value: BytesLike): Promise<void>;
  zadd(key: string, score: number, member: BytesLike): Promise<void>;
  rpush(key: string, ...values: BytesLike[]): Promise<void>;
  sadd(key: string, ...members: string[]): Promise<void>;
  del(key: string): Promise<void>;
  // companion reads
  type(key: string): Promise<RawType>;
  get(key: string): Promise<Buffer | null>;
  hgetall(key: string): Promise<Record<string, Buffer>>;
  /** Ascending by score. */
  zrange(key: string): Promise<Array<{ member: Buffer; score: number }>>;
  lrange(key: string): Promise<Buffer[]>;
  /** Sorted. */
  smembers(key: string): Promise<string[]>;
  /** Milliseconds; -1 without TTL, -2 when absent. */
  pttl(key: string): Promise<number>;
  /** Every key, sorted. */
  keys(): Promise<string[]>;
}

export interface BackendFixture {
  backend: Backend;
  plantRaw: RawPlanter;
  cleanup: () => Promise<void>;
}

export const b = (s: string) => Buffer.from(s, "utf8");
export const texts = (bufs: Array<Buffer | null>) => bufs.map((x) => (x === null ? null : x.toString("utf8")));
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
export const now = () => Date.now() / 1000;
export const NOT_UTF8 = Buffer.from([0xff, 0xfe, 0x80, 0x41]);
export const body = (id: string | number, payload: unknown = {}) => pyJsonBytes({ id, payload });

/** Polls `read` until it answers; 20 s: a guard against hanging, generous for a loaded machine. */
export async function waitFor<T>(read: () => T | undefined, ms = 20_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = read();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error("timed out waiting");
    await sleep(10);
  }
}

/** Content of every key (type, value, whether it has a TTL), for "nothing changed" checks. */
export async function snapshot(raw: RawPlanter): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const k of await raw.keys()) {
    const type = await raw.type(k);
    let value: unknown;
    if (type === "string") value = (await raw.get(k))?.toString("base64");
    else if (type === "hash")
      value = Object.fromEntries(
        Object.entries(await raw.hgetall(k))
          .map(([f, v]) => [f, v.toString("base64")])
          .sort(),
      );
    else if (type === "zset") value = (await raw.zrange(k)).map((e) => [e.member.toString("base64"), e.score]);
    else if (type === "list") value = (await raw.lrange(k)).map((x) => x.toString("base64"));
    else if (type === "set") value = await raw.smembers(k);
    out[k] = { type, value, ttl: (await raw.pttl(k)) >= 0 };
  }
  return out;
}

/** The backend and raw access of the running test: set before each test by describeBackendContract. */
export interface ContractState {
  be: Backend;
  raw: RawPlanter;
}
