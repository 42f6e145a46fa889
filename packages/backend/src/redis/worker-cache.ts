// The console's copy of what it last read of each worker, kept true by Redis itself (issue 11,
// point 6): the batched reads of ./worker-read.ts (a page's rows, the index every first page
// reads, the worker lists) go through a connection that has CLIENT TRACKING on, redirected
// to a second connection subscribed to __redis__:invalidate. Redis then tells us of every
// change to a key that connection read (a write, a DEL, an expiry, a FLUSHDB), and a worker
// whose key changed is read again the next time it is asked for; the others are answered from
// memory. On 10,000 workers a fleet read pages through in about half the time, and a page asks
// Redis only for the workers that changed since it was last read (bench/README.md).
//
// Why an answer from the copy is as fresh as a read:
// - Every read first sends a PING on the listening connection and waits for its PONG. Redis
//   queues an invalidation to that connection while it runs the write, before the writer gets
//   its reply; so every write that finished before this read began is ahead of the PONG on
//   the same socket, and handled (the copy dropped) before the read looks at the copy.
// - A write can land after Redis answered a read but before its reply is handled here; its
//   invalidation may then be handled first, while nothing is kept yet. Reads in flight are
//   registered before they are sent, an invalidation marks what it touches in each of them,
//   and a marked value is used for that one answer but never kept.
// - When either connection drops (or a PING goes unanswered for a second) the copy is thrown
//   away and reads go to Redis directly until both connections are back (tried again after a
//   second; a Redis that refuses CLIENT TRACKING, e.g. an ACL, after a minute).
// - Nothing is kept longer than maxAgeMs (a minute): a bound for what tracking does not tell
//   (SWAPDB; a key past its TTL that Redis has not yet reclaimed), not a freshness window.
// - The copy holds at most `bytes` of the values read (their sizes in Redis), oldest dropped
//   first. Values handed out are frozen: callers share them.
import type { Redis } from "ioredis";
import { WORKER_FIELDS, workerKeyTwins } from "../keys";
import type { Subscription, WorkerRef } from "../types";
import { BackendUnavailableError } from "../errors";
import { RedisConnection } from "./connection";
import type { RedisContext } from "./context";

export interface WorkerCacheOptions {
  /** The most value bytes kept (what the values took in Redis); 0 turns the cache off. Default 64 MiB. */
  bytes?: number;
  /** The longest a value is kept, ms. Default 60,000. */
  maxAgeMs?: number;
  /** For tests: runs after a read's reply arrived and before its values are kept. */
  beforeKeep?: () => Promise<void>;
}

export const WORKER_CACHE_DEFAULT_BYTES = 64 * 1024 * 1024;
const DEFAULT_MAX_AGE_MS = 60_000;
/** How long a read waits for the listening connection's PONG before reading Redis directly. */
const SYNC_TIMEOUT_MS = 1000;
const RELINK_AFTER_DROP_MS = 1000;
const RELINK_AFTER_REFUSAL_MS = 60_000;

interface Slot {
  value: unknown;
  at: number;
  bytes: number;
}

interface Entry {
  type: string;
  id: string;
  /** One value per kind of read (a row, an index entry with or without hostname...). */
  slots: Map<string, Slot>;
}

/** A read in flight: what an invalidation arriving meanwhile touched of it. */
interface Flight {
  /** Entry keys (or list keys) read. */
  readonly keys: Set<string>;
  readonly touched: Set<string>;
  readonly touchedTypes: Set<string>;
  all: boolean;
}

interface Link {
  readonly data: RedisConnection;
  readonly listener: RedisConnection;
  ok: boolean;
  /** Its entry in the backend's subscriptions (closed with the backend), once linked. */
  sub?: Subscription;
}

export interface WorkerCacheStats {
  /** Values answered from the copy, and read from Redis, since the start. */
  hits: number;
  misses: number;
  /** Workers (and lists) the copy holds, and the bytes of their values. */
  entries: number;
  bytes: number;
  /** Whether reads go through the tracked connection right now. */
  linked: boolean;
}

/** Freezes a value handed out to several callers, and the arrays it holds (a row's `corrupt`, a list's refs). */
function freeze(value: unknown): void {
  if (value === null || typeof value !== "object" || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const v of Array.isArray(value) ? value : Object.values(value)) {
    if (Array.isArray(v) || (Array.isArray(value) && v !== null && typeof v === "object")) freeze(v);
  }
}

function newFlight(keys: string[]): Flight {
  return { keys: new Set(keys), touched: new Set(), touchedTypes: new Set(), all: false };
}

const entryKey = (type: string, id: string) => `${type}\u0000${id}`;
/** `wkr:` keys of the fields the cached reads touch, as suffixes. */
const FIELD_SUFFIXES = WORKER_FIELDS.map((f) => `:${f}`);

export class WorkerCache {
  /** Every entry, oldest first (what the byte budget drops first). */
  private readonly entries = new Map<string, Entry>();
  /** The same entries by type, then id: looked up without building a key (a page looks up 1,000). */
  private readonly byType = new Map<string, Map<string, Entry>>();
  private readonly lists = new Map<string, Slot>();
  private readonly flights = new Set<Flight>();
  private link: Link | null = null;
  private linking: Promise<Link | null> | null = null;
  private relinkAt = 0;
  private bytes = 0;
  private hits = 0;
  private misses = 0;
  private readonly budget: number;
  private readonly maxAgeMs: number;

  constructor(
    private readonly ctx: RedisContext,
    private readonly opts: WorkerCacheOptions = {},
  ) {
    this.budget = Math.max(0, opts.bytes ?? WORKER_CACHE_DEFAULT_BYTES);
    this.maxAgeMs = opts.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
  }

  stats(): WorkerCacheStats {
    return { hits: this.hits, misses: this.misses, entries: this.entries.size + this.lists.size, bytes: this.bytes, linked: this.link?.ok === true };
  }

  /**
   * One value per ref, each `slot` value kept from an earlier read while no key of its worker
   * changed; the rest read by `read` (on the tracked connection, or the backend's own when
   * there is none), which answers one value and its size in Redis per ref given.
   */
  async values<T>(slot: string, refs: WorkerRef[], read: (r: Redis, refs: WorkerRef[]) => Promise<Array<{ value: T; bytes: number }>>): Promise<T[]> {
    const link = await this.sync();
    if (link === null) return this.ctx.run(async (r) => (await read(r, refs)).map((x) => x.value));
    const now = Date.now();
    const out = new Array<T>(refs.length);
    const missing: WorkerRef[] = [];
    const at: number[] = [];
    let type: string | null = null;
    let ofType: Map<string, Entry> | undefined;
    for (let i = 0; i < refs.length; i++) {
      const ref = refs[i]!;
      if (ref.automationType !== type) {
        type = ref.automationType;
        ofType = this.byType.get(type);
      }
      const s = ofType?.get(ref.workerId)?.slots.get(slot);
      if (s !== undefined && now - s.at <= this.maxAgeMs) out[i] = s.value as T;
      else {
        missing.push(ref);
        at.push(i);
      }
    }
    this.hits += refs.length - missing.length;
    if (missing.length === 0) return out;
    this.misses += missing.length;
    const missingKeys = missing.map((r) => entryKey(r.automationType, r.workerId));
    const flight = newFlight(missingKeys);
    const got = await this.fly(
      link,
      flight,
      (r) => read(r, missing),
      () => this.ctx.run((r) => read(r, missing)),
    );
    const readAt = Date.now();
    for (let j = 0; j < missing.length; j++) {
      const ref = missing[j]!;
      const { value, bytes } = got[j]!;
      out[at[j]!] = value;
      const k = missingKeys[j]!;
      if (flight.all || flight.touched.has(k) || flight.touchedTypes.has(ref.automationType) || !link.ok) continue;
      let e = this.entries.get(k);
      if (!e) {
        e = { type: ref.automationType, id: ref.workerId, slots: new Map() };
        this.entries.set(k, e);
        let ids = this.byType.get(e.type);
        if (!ids) this.byType.set(e.type, (ids = new Map()));
        ids.set(e.id, e);
      }
      this.keep(e.slots, slot, value, bytes, readAt);
    }
    this.trim();
    return out;
  }

  /** The value read from the set `setKey` by `read`, kept while the set does not change. */
  async list<T>(setKey: string, read: (r: Redis) => Promise<{ value: T; bytes: number }>): Promise<T> {
    const link = await this.sync();
    if (link === null) return this.ctx.run(async (r) => (await read(r)).value);
    const s = this.lists.get(setKey);
    if (s !== undefined && Date.now() - s.at <= this.maxAgeMs) {
      this.hits++;
      return s.value as T;
    }
    this.misses++;
    const flight = newFlight([setKey]);
    const { value, bytes } = await this.fly(link, flight, read, () => this.ctx.run(read));
    if (!flight.all && !flight.touched.has(setKey) && link.ok) {
      this.keep(this.lists, setKey, value, bytes, Date.now());
      this.trim();
    }
    return value;
  }

  /** Keeps `value` (frozen: it is shared from now on) as `slots`' `name`, in place of what was there. */
  private keep(slots: Map<string, Slot>, name: string, value: unknown, bytes: number, at: number): void {
    freeze(value);
    const old = slots.get(name);
    if (old) this.bytes -= old.bytes;
    slots.set(name, { value, at, bytes });
    this.bytes += bytes;
  }

  /**
   * Runs `read` on the tracked connection with `flight` registered; when that connection
   * failed under it, reads again through `direct` (nothing of it is kept then).
   */
  private async fly<V>(link: Link, flight: Flight, read: (r: Redis) => Promise<V>, direct: () => Promise<V>): Promise<V> {
    this.flights.add(flight);
    try {
      let got: V;
      try {
        got = await link.data.run(read);
      } catch (err) {
        if (link.ok) throw err;
        flight.all = true;
        return await direct();
      }
      await this.opts.beforeKeep?.();
      return got;
    } finally {
      this.flights.delete(flight);
    }
  }

  /** Drops the oldest values until the copy is within its budget. */
  private trim(): void {
    if (this.bytes <= this.budget) return;
    for (const [k, s] of this.lists) {
      if (this.bytes <= this.budget) return;
      this.lists.delete(k);
      this.bytes -= s.bytes;
    }
    for (const [k, e] of this.entries) {
      if (this.bytes <= this.budget) return;
      this.drop(k, e);
    }
  }

  private drop(k: string, e: Entry): void {
    this.entries.delete(k);
    const ids = this.byType.get(e.type);
    ids?.delete(e.id);
    if (ids?.size === 0) this.byType.delete(e.type);
    for (const s of e.slots.values()) this.bytes -= s.bytes;
  }

  private flush(): void {
    this.entries.clear();
    this.byType.clear();
    this.lists.clear();
    this.bytes = 0;
    for (const f of this.flights) f.all = true;
  }

  /** What an invalidation names: `wkr:<type>:<id>:<field>`, `wkrs:<type>`, `wkrs:all`; null for everything (FLUSHDB...). */
  private invalidate(names: string[] | null): void {
    if (names === null) {
      this.flush();
      return;
    }
    for (const name of names) {
      if (name.startsWith("wkrs:")) {
        // a worker index: the lists read from it, and (a type's) every worker's registration
        const kept = this.lists.get(name);
        if (kept) {
          this.lists.delete(name);
          this.bytes -= kept.bytes;
        }
        for (const f of this.flights) if (f.keys.has(name)) f.touched.add(name);
        // wkrs:all is no type's ("all" cannot be one): no entry has that type
        const type = name.slice("wkrs:".length);
        for (const e of [...(this.byType.get(type)?.values() ?? [])]) this.drop(entryKey(e.type, e.id), e);
        for (const f of this.flights) f.touchedTypes.add(type);
        continue;
      }
      if (!name.startsWith("wkr:")) continue;
      const suffix = FIELD_SUFFIXES.find((s) => name.endsWith(s));
      if (suffix === undefined) continue;
      const joined = name.slice("wkr:".length, name.length - suffix.length);
      const colon = joined.indexOf(":");
      if (colon < 0) continue;
      // `a:b:c` is the key of a/b:c and of a:b/c alike: every reading of it is dropped
      for (const ref of workerKeyTwins(joined.slice(0, colon), joined.slice(colon + 1)).concat({ automationType: joined.slice(0, colon), workerId: joined.slice(colon + 1) })) {
        const k = entryKey(ref.automationType, ref.workerId);
        const e = this.entries.get(k);
        if (e) this.drop(k, e);
        for (const f of this.flights) if (f.keys.has(k)) f.touched.add(k);
      }
    }
  }

  /**
   * The tracked connection, once every invalidation Redis sent before now has been handled;
   * null when there is none (off, refused, or down): read Redis directly then.
   */
  private async sync(): Promise<Link | null> {
    if (this.budget === 0) return null;
    let link = this.link;
    if (link === null) {
      if (Date.now() < this.relinkAt) return null;
      // the backend's own connection first: when Redis is down, its error is this read's
      // answer, as fast as a direct read would give it
      await this.ctx.conn.ready();
      this.linking ??= this.connect().finally(() => {
        this.linking = null;
      });
      link = await this.linking;
      if (link === null) return null;
    }
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        link.listener.client.ping(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error("no PONG")), SYNC_TIMEOUT_MS);
        }),
      ]);
    } catch {
      void this.fail(link, RELINK_AFTER_DROP_MS);
      return null;
    } finally {
      clearTimeout(timer);
    }
    return link.ok ? link : null;
  }

  private async connect(): Promise<Link | null> {
    // RESP2 on purpose: with REDIRECT, Redis delivers invalidations as pub/sub messages on
    // __redis__:invalidate (ioredis drops RESP3 "invalidate" pushes). No reconnection: a new
    // connection has no tracking, so a drop ends the link (see fail).
    const extra = { protocol: 2, enableOfflineQueue: true, autoResubscribe: false, retryStrategy: () => null } as const;
    const listener = new RedisConnection(this.ctx.rawUrl, this.ctx.opts, extra);
    const data = new RedisConnection(this.ctx.rawUrl, this.ctx.opts, extra);
    const link: Link = { data, listener, ok: false };
    listener.client.on("messageBuffer", (channel: Buffer, message: unknown) => {
      if (!link.ok || channel.toString() !== "__redis__:invalidate") return;
      this.invalidate(Array.isArray(message) ? message.map((k) => String(k)) : null);
    });
    try {
      const id = await listener.run((r) => r.client("ID"));
      await listener.run((r) => r.subscribe("__redis__:invalidate"));
      await data.run((r) => r.call("CLIENT", "TRACKING", "ON", "REDIRECT", String(id)));
    } catch (err) {
      // Redis < 6 or CLIENT / SUBSCRIBE refused (an ACL): read directly for a minute; down: a second
      await Promise.all([listener.close(), data.close()]);
      this.relinkAt = Date.now() + (err instanceof BackendUnavailableError ? RELINK_AFTER_DROP_MS : RELINK_AFTER_REFUSAL_MS);
      return null;
    }
    link.ok = true;
    this.link = link;
    const lost = () => void this.fail(link, RELINK_AFTER_DROP_MS);
    listener.client.once("close", lost);
    data.client.once("close", lost);
    link.sub = { close: () => this.fail(link, Number.POSITIVE_INFINITY) };
    this.ctx.subscriptions.add(link.sub);
    return link;
  }

  /** Ends `link` (if it is the current one): the copy is thrown away, reads go direct until relinkAfter ms from now. */
  private async fail(link: Link, relinkAfterMs: number): Promise<void> {
    if (!link.ok) return;
    link.ok = false;
    if (this.link === link) this.link = null;
    this.flush();
    this.relinkAt = Date.now() + relinkAfterMs;
    if (link.sub) this.ctx.subscriptions.delete(link.sub);
    await Promise.all([link.listener.close(), link.data.close()]);
  }
}
