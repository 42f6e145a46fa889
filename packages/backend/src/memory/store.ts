// A tiny single-process model of the Redis data types Fleet uses (strings, hashes, sets,
// sorted sets, lists), with Redis's rules where the backend depends on them: SET clears a
// TTL while collection writes keep it, an emptied collection key disappears, a command on
// a key of another type fails (WRONGTYPE), TTLs are judged lazily against Date.now().
// Values are bytes, so tests can plant exactly what a broken writer would leave behind.

import { CorruptDataError } from "../errors";
import { toBuffer } from "../codec";
import type { BytesLike } from "../types";

export type RedisType = "string" | "hash" | "set" | "zset" | "list";

export interface ZMember {
  member: Buffer;
  score: number;
}

/** Members ordered as Redis orders them: by score, then by member bytes. */
export class SortedSet {
  private readonly scores = new Map<string, number>();
  private readonly ordered: ZMember[] = [];

  get size(): number {
    return this.ordered.length;
  }

  private static id(member: Buffer): string {
    return member.toString("latin1");
  }

  private static cmp(a: ZMember, b: ZMember): number {
    return a.score - b.score || Buffer.compare(a.member, b.member);
  }

  private indexOf(entry: ZMember): number {
    let lo = 0;
    let hi = this.ordered.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (SortedSet.cmp(this.ordered[mid]!, entry) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** True when the member is new. */
  add(member: Buffer, score: number): boolean {
    const existed = this.remove(member);
    const entry = { member: Buffer.from(member), score };
    this.ordered.splice(this.indexOf(entry), 0, entry);
    this.scores.set(SortedSet.id(member), score);
    return !existed;
  }

  remove(member: Buffer): boolean {
    const score = this.scores.get(SortedSet.id(member));
    if (score === undefined) return false;
    const i = this.indexOf({ member, score });
    this.ordered.splice(i, 1);
    this.scores.delete(SortedSet.id(member));
    return true;
  }

  score(member: Buffer): number | null {
    return this.scores.get(SortedSet.id(member)) ?? null;
  }

  all(): ZMember[] {
    return this.ordered.slice();
  }

  byScore(min: number, max: number): ZMember[] {
    return this.ordered.filter((e) => e.score >= min && e.score <= max);
  }
}

export type Value =
  | { type: "string"; value: Buffer }
  | { type: "hash"; value: Map<string, Buffer> }
  | { type: "set"; value: Set<string> }
  | { type: "zset"; value: SortedSet }
  | { type: "list"; value: Buffer[] };

type Entry = Value & { expiresAtMs: number | null };

interface ValueTypes {
  string: Buffer;
  hash: Map<string, Buffer>;
  set: Set<string>;
  zset: SortedSet;
  list: Buffer[];
}

type ValueOf<T extends RedisType> = ValueTypes[T];

/**
 * The key space. Public methods double as the documented test hook `MemoryBackend.raw`:
 * tests write raw (possibly corrupt) bytes under Fleet's key names and read back exactly
 * what an operation stored.
 */
export class MemoryStore {
  private readonly data = new Map<string, Entry>();

  private live(key: string): Entry | undefined {
    const e = this.data.get(key);
    if (e && e.expiresAtMs !== null && e.expiresAtMs <= Date.now()) {
      this.data.delete(key);
      return undefined;
    }
    return e;
  }

  private read<T extends RedisType>(key: string, type: T): ValueOf<T> | undefined {
    const e = this.live(key);
    if (!e) return undefined;
    if (e.type !== type) throw new CorruptDataError(`WRONGTYPE ${key} holds a ${e.type}, not a ${type}`);
    return e.value as unknown as ValueOf<T>;
  }

  private write<T extends RedisType>(key: string, type: T, make: () => ValueOf<T>): ValueOf<T> {
    const existing = this.read(key, type);
    if (existing !== undefined) return existing;
    const value = make();
    this.data.set(key, { type, value, expiresAtMs: null } as Entry);
    return value;
  }

  /** Redis deletes a collection key once it is empty. */
  private dropIfEmpty(key: string): void {
    const e = this.data.get(key);
    if (!e || e.type === "string") return;
    const size = e.type === "list" ? e.value.length : e.value.size;
    if (size === 0) this.data.delete(key);
  }

  // ---- generic

  /** The live value under a key with its type, in one lookup (for hot read paths). */
  peek(key: string): Value | undefined {
    return this.live(key);
  }

  /** Every live key, sorted. */
  keys(): string[] {
    return [...this.data.keys()].filter((k) => this.live(k) !== undefined).sort();
  }

  /** Live keys starting with `prefix`, sorted (a literal prefix: no glob characters). */
  keysWithPrefix(prefix: string): string[] {
    return this.keys().filter((k) => k.startsWith(prefix));
  }

  type(key: string): RedisType | "none" {
    return this.live(key)?.type ?? "none";
  }

  exists(key: string): boolean {
    return this.live(key) !== undefined;
  }

  del(...keys: string[]): number {
    let n = 0;
    for (const k of keys) if (this.live(k) !== undefined && this.data.delete(k)) n++;
    return n;
  }

  /** Milliseconds left; -1 when the key has no TTL, -2 when it does not exist. */
  pttl(key: string): number {
    const e = this.live(key);
    if (!e) return -2;
    return e.expiresAtMs === null ? -1 : Math.max(0, e.expiresAtMs - Date.now());
  }

  expire(key: string, ttlMs: number): boolean {
    const e = this.live(key);
    if (!e) return false;
    e.expiresAtMs = Date.now() + ttlMs;
    return true;
  }

  flush(): void {
    this.data.clear();
  }

  // ---- strings

  get(key: string): Buffer | null {
    return this.read(key, "string") ?? null;
  }

  /** SET [NX] [PX]: returns false when NX found the key. Overwrites a key of any type, TTL cleared. */
  set(key: string, value: BytesLike, opts: { nx?: boolean; ttlMs?: number | null } = {}): boolean {
    if (opts.nx && this.live(key) !== undefined) return false;
    const expiresAtMs = opts.ttlMs != null && opts.ttlMs > 0 ? Date.now() + opts.ttlMs : null;
    this.data.set(key, { type: "string", value: Buffer.from(toBuffer(value)), expiresAtMs });
    return true;
  }

  /** INCRBY with Redis's integer rules; a non-integer value throws CorruptDataError. */
  incrBy(key: string, by: number): number {
    const cur = this.get(key);
    let n = 0;
    if (cur !== null) {
      const text = cur.toString("latin1");
      if (!/^-?(0|[1-9]\d{0,18})$/.test(text) || !Number.isSafeInteger(Number(text))) {
        throw new CorruptDataError(`${key} holds ${JSON.stringify(text)}, not an integer`);
      }
      n = Number(text);
    }
    const next = n + by;
    if (!Number.isSafeInteger(next)) throw new CorruptDataError(`increment of ${key} overflows`);
    const e = this.live(key);
    const expiresAtMs = e?.expiresAtMs ?? null;
    this.data.set(key, { type: "string", value: Buffer.from(String(next)), expiresAtMs });
    return next;
  }

  strlen(key: string): number {
    return this.get(key)?.length ?? 0;
  }

  // ---- hashes

  hget(key: string, field: string): Buffer | null {
    return this.read(key, "hash")?.get(field) ?? null;
  }

  /** Number of new fields. */
  hset(key: string, fields: Record<string, BytesLike> | Map<string, BytesLike>): number {
    const h = this.write(key, "hash", () => new Map<string, Buffer>());
    let added = 0;
    const entries = fields instanceof Map ? [...fields.entries()] : Object.entries(fields);
    for (const [f, v] of entries) {
      if (!h.has(f)) added++;
      h.set(f, Buffer.from(toBuffer(v)));
    }
    this.dropIfEmpty(key);
    return added;
  }

  hdel(key: string, ...fields: string[]): number {
    const h = this.read(key, "hash");
    if (!h) return 0;
    let n = 0;
    for (const f of fields) if (h.delete(f)) n++;
    this.dropIfEmpty(key);
    return n;
  }

  /** Fields in insertion order, as a small Redis hash (listpack) returns them. */
  hgetall(key: string): Map<string, Buffer> {
    return new Map(this.read(key, "hash") ?? []);
  }

  hlen(key: string): number {
    return this.read(key, "hash")?.size ?? 0;
  }

  // ---- sets

  sadd(key: string, ...members: string[]): number {
    const s = this.write(key, "set", () => new Set<string>());
    let n = 0;
    for (const m of members) if (!s.has(m) && s.add(m)) n++;
    this.dropIfEmpty(key);
    return n;
  }

  srem(key: string, ...members: string[]): number {
    const s = this.read(key, "set");
    if (!s) return 0;
    let n = 0;
    for (const m of members) if (s.delete(m)) n++;
    this.dropIfEmpty(key);
    return n;
  }

  sismember(key: string, member: string): boolean {
    return this.read(key, "set")?.has(member) ?? false;
  }

  /** Sorted, so callers and tests see a stable order. */
  smembers(key: string): string[] {
    return [...(this.read(key, "set") ?? [])].sort();
  }

  // ---- sorted sets

  zadd(key: string, score: number, member: BytesLike): boolean {
    const z = this.write(key, "zset", () => new SortedSet());
    return z.add(toBuffer(member), score);
  }

  zrem(key: string, member: BytesLike): boolean {
    const z = this.read(key, "zset");
    if (!z) return false;
    const removed = z.remove(toBuffer(member));
    this.dropIfEmpty(key);
    return removed;
  }

  zscore(key: string, member: BytesLike): number | null {
    return this.read(key, "zset")?.score(toBuffer(member)) ?? null;
  }

  zcard(key: string): number {
    return this.read(key, "zset")?.size ?? 0;
  }

  /** Ascending by score, then member bytes. */
  zrange(key: string): ZMember[] {
    return this.read(key, "zset")?.all() ?? [];
  }

  zrangeByScore(key: string, min: number, max: number): ZMember[] {
    return this.read(key, "zset")?.byScore(min, max) ?? [];
  }

  zremRangeByScore(key: string, min: number, max: number): number {
    const z = this.read(key, "zset");
    if (!z) return 0;
    const doomed = z.byScore(min, max);
    for (const e of doomed) z.remove(e.member);
    this.dropIfEmpty(key);
    return doomed.length;
  }

  /** Keeps the `keep` highest-ranked members (ZREMRANGEBYRANK 0 -(keep+1)). */
  zkeepNewest(key: string, keep: number): number {
    const z = this.read(key, "zset");
    if (!z || z.size <= keep) return 0;
    const doomed = z.all().slice(0, z.size - keep);
    for (const e of doomed) z.remove(e.member);
    this.dropIfEmpty(key);
    return doomed.length;
  }

  zpopmin(key: string, n: number): ZMember[] {
    const z = this.read(key, "zset");
    if (!z || n <= 0) return [];
    const out = z.all().slice(0, n);
    for (const e of out) z.remove(e.member);
    this.dropIfEmpty(key);
    return out;
  }

  // ---- lists

  /** Called after every push onto a list (what BLPOP-like waiters listen to). */
  onListPush: ((key: string) => void) | null = null;

  rpush(key: string, ...values: BytesLike[]): number {
    const l = this.write(key, "list", () => [] as Buffer[]);
    for (const v of values) l.push(Buffer.from(toBuffer(v)));
    this.dropIfEmpty(key);
    if (values.length > 0) this.onListPush?.(key);
    return l.length;
  }

  lpush(key: string, ...values: BytesLike[]): number {
    const l = this.write(key, "list", () => [] as Buffer[]);
    for (const v of values) l.unshift(Buffer.from(toBuffer(v)));
    this.dropIfEmpty(key);
    if (values.length > 0) this.onListPush?.(key);
    return l.length;
  }

  lpop(key: string): Buffer | null {
    const l = this.read(key, "list");
    if (!l) return null;
    const v = l.shift() ?? null;
    this.dropIfEmpty(key);
    return v;
  }

  llen(key: string): number {
    return this.read(key, "list")?.length ?? 0;
  }

  /** LRANGE with Redis's inclusive, negative-capable indexes. */
  lrange(key: string, start = 0, stop = -1): Buffer[] {
    const l = this.read(key, "list") ?? [];
    const [from, to] = redisRange(l.length, start, stop);
    return l.slice(from, to);
  }

  ltrim(key: string, start: number, stop: number): void {
    const l = this.read(key, "list");
    if (!l) return;
    const [from, to] = redisRange(l.length, start, stop);
    const kept = l.slice(from, to);
    l.length = 0;
    l.push(...kept);
    this.dropIfEmpty(key);
  }

  /** Replaces the whole list (used by content-addressed DLQ edits). */
  lreplace(key: string, values: Buffer[]): void {
    const l = this.write(key, "list", () => [] as Buffer[]);
    l.length = 0;
    l.push(...values);
    this.dropIfEmpty(key);
  }
}

function redisRange(len: number, start: number, stop: number): [number, number] {
  let from = start < 0 ? Math.max(0, len + start) : start;
  const last = stop < 0 ? len + stop : Math.min(stop, len - 1);
  if (from > last) from = last + 1;
  return [from, Math.max(from, last + 1)];
}
