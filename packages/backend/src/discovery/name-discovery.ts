// Bounded name discovery (issue 11): which queues, pools, streams, locks, counters and kv
// namespaces exist, found by ONE background walk of the key space per console instead of
// a SCAN per request or per tick. Routes, the live-events loop and /metrics all read the
// names from here and then read live figures for those names only (one pipeline).
//
// - The walk is an incremental SCAN (Backend.keyScan): one step every `stepIntervalMs`
//   (at a fixed rate: a slow round trip does not stretch the pass), its COUNT sized from
//   DBSIZE so that a pass takes about `targetPassMs` whatever the database's size. A pass
//   costs Redis time in proportion to the whole database (Redis 7.0 spends 0.15-0.4 µs per
//   key looked at, matching or not: 150-400 ms per pass at 1M keys), so the pace is the
//   trade between how soon a foreign name shows and the walk's share of a core.
// - What a step sees is known at once; a pass replaces what the previous one found, so a
//   name whose keys are all gone disappears when the pass that no longer sees it ends. The
//   walk goes round and round, each bucket of Redis' table visited once per pass, so a
//   name created by someone else is seen within about one pass: see `boundMs()`.
// - Names the console learns otherwise are known at once: its own writes (`noteWrites`),
//   catalog types (queue and stream candidates, read at each pass start), stream names
//   from `event:<type>.emit` messages, and what Redis reports as written: keyspace
//   notifications when it already sends them (never switched on here), else client-side
//   caching in broadcast mode on a connection of the discovery's own (`CLIENT TRACKING ON
//   BCAST PREFIX fleet:queue: ...`, Redis 6+: a setting of that connection, not of the
//   server), which names every key written under Fleet's prefixes. With either, a name
//   shows within milliseconds and the walk is only a backstop (a slow pass every ten
//   minutes). A name learnt during a pass is added to that pass too.
// - Names are candidates: readers check them against live figures (a queue with no key,
//   a lock no longer held) and leave out what does not exist, so a deletion shows at once.
// - kv: per namespace its key names while it has at most `smallNamespaceKeys` of them
//   (so /kv/{ns} of a small namespace is answered from here, sorted and exact), only a
//   count beyond that (paged with a cursor instead).
// - Idle: without a reader for `idleMs` the walk stops; the next read restarts it and
//   waits (bounded) for one fresh pass, so an unused console costs Redis nothing.
import type { Backend, Subscription } from "../types";
import { DISCOVERY_PREFIXES, nameOfKey, type NameKind } from "../keys";

export type ListedKind = Exclude<NameKind, "kv">;
const LISTED_KINDS: readonly ListedKind[] = ["queue", "pool", "stream", "lock", "counter"];

export interface NameDiscoveryOptions {
  /** Pause between two SCAN steps. Default 50 ms. */
  stepIntervalMs?: number;
  /** How long a pass should take, whatever the size of the database (up to maxCount per step). Default 12000 ms. */
  targetPassMs?: number;
  /** A new pass starts at most this often (small databases). Default 500 ms. */
  minPassIntervalMs?: number;
  /** When Redis reports writes (tracking, or keyspace notifications of every Fleet key), the walk is a backstop: a pass of about this long... Default 60000 ms. */
  backstopPassMs?: number;
  /** ...every this often. Default 600000 ms. */
  backstopIntervalMs?: number;
  /** Bounds of SCAN's COUNT per step. Defaults 1000 and 10000 (a step of 10,000 keys is a few milliseconds of Redis). */
  minCount?: number;
  maxCount?: number;
  /** Stop walking after this long without a reader. Default 300000 ms. */
  idleMs?: number;
  /** How long a reader waits for a pass the cache needs (the first, or after idling). Default 5000 ms. */
  readyWaitMs?: number;
  /** kv namespaces with at most this many keys keep their key names. Default 10000. */
  smallNamespaceKeys?: number;
  /** ...and all of them together at most this many. Default 200000. */
  maxCachedKvKeys?: number;
  /** Listen to what Redis reports as written (keyspace notifications if on, else key tracking). Default true. */
  liveEvents?: boolean;
  log?: (message: string, err?: unknown) => void;
}

interface Namespace {
  /** Key names; null once the namespace outgrew smallNamespaceKeys (then only counted). */
  keys: Set<string> | null;
  count: number;
}

interface Found {
  names: Record<ListedKind, Set<string>>;
  kv: Map<string, Namespace>;
  kvKeysHeld: number;
}

interface Pass extends Found {
  cursor: string;
  count: number;
  startedAt: number;
}

export type LiveEvents = "off" | "tracking" | "keyspace" | "keyspace-partial";

export interface DiscoveryStatus {
  running: boolean;
  /** Completed passes since the discovery was made. */
  passes: number;
  /** Duration of the last complete pass, ms (null before the first). */
  lastPassMs: number | null;
  /** DBSIZE when the current (or last) pass began. */
  keyCount: number;
  /** SCAN COUNT of the current pass. */
  scanCount: number;
  scanSteps: number;
  /**
   * What Redis reports as written: "tracking" (CLIENT TRACKING, broadcast mode) or
   * "keyspace" (notifications covering every Fleet key): the walk is a backstop;
   * "keyspace-partial" (notifications of some classes: they only speed things up); "off".
   */
  liveEvents: LiveEvents;
  /** Upper bound on how long a name created by someone else takes to appear, ms. */
  boundMs: number;
}

const now = () => performance.now();
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function emptyFound(): Found {
  return {
    names: { queue: new Set(), pool: new Set(), stream: new Set(), lock: new Set(), counter: new Set() },
    kv: new Map(),
    kvKeysHeld: 0,
  };
}

/** Code-unit order, as every list of the console. */
const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export class NameDiscovery {
  private readonly opts: Required<Omit<NameDiscoveryOptions, "log">> & Pick<NameDiscoveryOptions, "log">;
  private known: Found = emptyFound();
  private pass: Pass | null = null;
  private passes = 0;
  private lastPassMs: number | null = null;
  private scanSteps = 0;
  private lastKeyCount = 0;

  private running = false;
  private generation = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private lastRead = now();
  /** Set while the cache needs a pass before it can answer (first start, restart after idling). */
  private stale = true;
  private passWaiters = new Set<() => void>();
  /** Passes run step after step, without pauses, until `passes` reaches this. */
  private eagerUntil = 0;

  private events: Subscription | null = null;
  private eventsMode: LiveEvents = "off";
  private eventsRetry: ReturnType<typeof setTimeout> | null = null;
  /** kv keys Redis reported written: whether each still exists is read in one batch. */
  private kvToCheck = new Map<string, Set<string>>();
  private kvCheckTimer: ReturnType<typeof setTimeout> | null = null;
  private closed = false;

  constructor(
    private readonly backend: Backend,
    options: NameDiscoveryOptions = {},
  ) {
    this.opts = {
      stepIntervalMs: 50,
      targetPassMs: 12_000,
      minPassIntervalMs: 500,
      backstopPassMs: 60_000,
      backstopIntervalMs: 600_000,
      minCount: 1000,
      maxCount: 10_000,
      idleMs: 300_000,
      readyWaitMs: 5000,
      smallNamespaceKeys: 10_000,
      maxCachedKvKeys: 200_000,
      liveEvents: true,
      ...options,
    };
  }

  // ---- reading

  /** Candidate names of one kind, sorted. Starts the walk if it is not running. */
  async names(kind: ListedKind): Promise<string[]> {
    await this.ready();
    return [...this.known.names[kind]].sort(byString);
  }

  /** Every kv namespace with its key count as of the last pass (plus the console's own writes since). */
  async kvNamespaces(): Promise<Array<{ ns: string; keys: number }>> {
    await this.ready();
    return [...this.known.kv.entries()]
      .filter(([, n]) => n.count > 0)
      .sort(([a], [b]) => byString(a, b))
      .map(([ns, n]) => ({ ns, keys: n.count }));
  }

  /**
   * A namespace's keys, sorted, when it is small enough to be held here; null when it is
   * only counted (read it with a cursor); [] when it is not known at all.
   */
  async kvKeys(ns: string): Promise<{ keys: string[] | null; count: number }> {
    await this.ready();
    const n = this.known.kv.get(ns);
    if (!n) return { keys: [], count: 0 };
    return { keys: n.keys === null ? null : [...n.keys].sort(byString), count: n.count };
  }

  status(): DiscoveryStatus {
    return {
      running: this.running,
      passes: this.passes,
      lastPassMs: this.lastPassMs,
      keyCount: this.lastKeyCount,
      scanCount: this.pass?.count ?? this.countFor(this.lastKeyCount),
      scanSteps: this.scanSteps,
      liveEvents: this.eventsMode,
      boundMs: this.boundMs(),
    };
  }

  /**
   * How long a name created by someone else may take to appear: the walk comes back to its
   * bucket one pass (and the pause between passes) later, give or take what Redis' table
   * resizing moves around.
   */
  boundMs(): number {
    if (this.instant) return 0;
    const steps = Math.max(1, Math.ceil(this.lastKeyCount / this.countFor(this.lastKeyCount)));
    const pass = Math.max(this.lastPassMs ?? 0, steps * this.opts.stepIntervalMs);
    return pass + Math.max(this.opts.minPassIntervalMs - pass, 0) + 2 * this.opts.stepIntervalMs;
  }

  // ---- learning at once

  /** A name the console knows exists (its own write, a bus message): listed from now on. */
  learn(kind: ListedKind, name: string): void {
    if (name.length === 0) return;
    this.known.names[kind].add(name);
    this.pass?.names[kind].add(name);
  }

  /** A kv key the console wrote. */
  learnKvKey(ns: string, key: string): void {
    addKvKey(this.known, ns, key, this.opts);
    if (this.pass) addKvKey(this.pass, ns, key, this.opts);
  }

  /** A kv key the console deleted (or Redis reported gone). */
  forgetKvKey(ns: string, key: string): void {
    removeKvKey(this.known, ns, key);
    if (this.pass) removeKvKey(this.pass, ns, key);
  }

  /** A name a reader found to have no key left: dropped until something shows it again. */
  forget(kind: ListedKind, name: string): void {
    this.known.names[kind].delete(name);
    this.pass?.names[kind].delete(name);
  }

  /** Whatever a raw key name says (a keyspace notification). */
  noteKey(key: string, gone = false): void {
    const n = nameOfKey(key);
    if (!n) return;
    if (n.kind === "kv") {
      if (gone) this.forgetKvKey(n.name, n.key!);
      else this.learnKvKey(n.name, n.key!);
    } else if (!gone) this.learn(n.kind, n.name);
  }

  // ---- running

  /** Starts the walk (idempotent). Readers start it themselves. */
  start(): void {
    if (this.running || this.closed) return;
    this.running = true;
    this.lastRead = now();
    const gen = ++this.generation;
    if (this.stale) this.eagerUntil = Math.max(this.eagerUntil, this.passes + 1);
    if (this.opts.liveEvents) void this.subscribeEvents(gen);
    this.schedule(gen, 0);
  }

  /** Stops the walk; what is known stays (and is marked stale). */
  stop(): void {
    if (!this.running) return;
    this.running = false;
    this.generation++;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.pass = null;
    this.stale = true;
    const events = this.events;
    this.events = null;
    this.eventsMode = "off";
    if (events) void events.close().catch(() => undefined);
    if (this.eventsRetry) clearTimeout(this.eventsRetry);
    this.eventsRetry = null;
    if (this.kvCheckTimer) clearTimeout(this.kvCheckTimer);
    this.kvCheckTimer = null;
    this.kvToCheck.clear();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stop();
    for (const w of [...this.passWaiters]) w();
  }

  /**
   * Runs one whole pass now, step after step without pauses, and waits for it (tests, and
   * a console that wants its names right away). Concurrent walks are not started twice:
   * the running one is finished eagerly instead.
   */
  async refresh(): Promise<void> {
    if (this.closed) return;
    const target = this.passes + (this.pass ? 2 : 1);
    this.eagerUntil = Math.max(this.eagerUntil, target);
    if (!this.running) this.start();
    else {
      if (this.timer) {
        clearTimeout(this.timer);
        this.timer = null;
        this.schedule(this.generation, 0);
      }
    }
    while (this.passes < target && !this.closed) await this.nextPassEnd();
  }

  /** Marks a read: keeps the walk alive, and waits (bounded) for a pass when the cache needs one. */
  private async ready(): Promise<void> {
    this.lastRead = now();
    if (!this.running) this.start();
    if (!this.stale) return;
    await Promise.race([this.nextPassEnd(), sleep(this.opts.readyWaitMs)]);
  }

  private nextPassEnd(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.passWaiters.delete(done);
        resolve();
      };
      this.passWaiters.add(done);
    });
  }

  private schedule(gen: number, delay: number): void {
    if (gen !== this.generation) return;
    this.timer = setTimeout(() => void this.step(gen), delay);
    this.timer.unref?.();
  }

  /** Whether Redis reports every write of a Fleet key (the walk is then a backstop). */
  private get instant(): boolean {
    return this.eventsMode === "tracking" || this.eventsMode === "keyspace";
  }

  private countFor(keyCount: number): number {
    const steps = Math.max(1, (this.instant ? this.opts.backstopPassMs : this.opts.targetPassMs) / this.opts.stepIntervalMs);
    return Math.max(this.opts.minCount, Math.min(this.opts.maxCount, Math.ceil(keyCount / steps)));
  }

  private async step(gen: number): Promise<void> {
    if (gen !== this.generation) return;
    if (this.passes >= this.eagerUntil && now() - this.lastRead > this.opts.idleMs) {
      this.stop();
      return;
    }
    let delay = this.opts.stepIntervalMs;
    try {
      if (!this.pass) {
        const keyCount = await this.backend.keyCount();
        // a catalog that cannot be read (wrong type) only costs its candidates
        const catalog = await this.backend.catalogTypes().catch(() => [] as string[]);
        if (gen !== this.generation) return;
        this.lastKeyCount = keyCount;
        const found = emptyFound();
        // catalog types are candidates for a queue and a stream of the same name
        for (const type of catalog) {
          found.names.queue.add(type);
          found.names.stream.add(type);
        }
        this.pass = { ...found, cursor: "0", count: this.countFor(keyCount), startedAt: now() };
        for (const type of catalog) {
          this.known.names.queue.add(type);
          this.known.names.stream.add(type);
        }
      }
      const pass = this.pass;
      const t0 = now();
      const page = await this.backend.keyScan(pass.cursor, pass.count);
      if (gen !== this.generation || this.pass !== pass) return;
      this.scanSteps++;
      // fixed rate: the round trip counts towards the pause
      delay = Math.max(0, this.opts.stepIntervalMs - (now() - t0));
      for (const key of page.keys) {
        const n = nameOfKey(key);
        if (!n) continue;
        if (n.kind === "kv") {
          addKvKey(pass, n.name, n.key!, this.opts, true);
          // a namespace never seen before shows at once; counts settle when the pass ends
          if (!this.known.kv.has(n.name)) addKvKey(this.known, n.name, n.key!, this.opts);
        } else {
          pass.names[n.kind].add(n.name);
          this.known.names[n.kind].add(n.name);
        }
      }
      pass.cursor = page.cursor;
      if (page.cursor === "0") {
        this.known = { names: pass.names, kv: pass.kv, kvKeysHeld: pass.kvKeysHeld };
        this.pass = null;
        this.passes++;
        const end = now();
        this.lastPassMs = end - pass.startedAt;
        this.stale = false;
        for (const w of [...this.passWaiters]) w();
        const every = this.instant ? this.opts.backstopIntervalMs : this.opts.minPassIntervalMs;
        delay = this.passes < this.eagerUntil ? 0 : Math.max(this.opts.stepIntervalMs, every - this.lastPassMs);
      } else if (this.passes < this.eagerUntil) delay = 0;
    } catch (err) {
      // Redis down: keep what is known, try again a second later (the pass goes on from its cursor)
      this.opts.log?.("name discovery step failed; retrying", err);
      delay = Math.max(1000, this.opts.stepIntervalMs);
    }
    this.schedule(gen, delay);
  }

  /** Keyspace notifications when they cover every Fleet key, else key tracking, else partial notifications, else none. */
  private async subscribeEvents(gen: number): Promise<void> {
    const current = () => gen === this.generation;
    try {
      const keyspace = await this.backend.subscribeKeyspace((key, event) => this.onKeyspaceEvent(key, event));
      if (keyspace) {
        const f = keyspace.flags;
        // every class Fleet's keys need: generic (del, expire), strings, lists, hashes, zsets, expired
        const full = f.includes("A") || [..."g$lhzx"].every((c) => f.includes(c));
        if (full || !current()) return this.adopt(gen, keyspace.subscription, "keyspace");
        const tracking = await this.subscribeTracking(gen);
        if (tracking) {
          await keyspace.subscription.close();
          return this.adopt(gen, tracking, "tracking");
        }
        return this.adopt(gen, keyspace.subscription, "keyspace-partial");
      }
      const tracking = await this.subscribeTracking(gen);
      if (tracking) this.adopt(gen, tracking, "tracking");
    } catch (err) {
      this.opts.log?.("Redis' reports of writes could not be subscribed; discovery walks only", err);
    }
  }

  private subscribeTracking(gen: number): Promise<Subscription | null> {
    return this.backend.trackKeys(
      DISCOVERY_PREFIXES,
      (keys) => this.onTrackedKeys(keys),
      () => {
        if (gen !== this.generation) return;
        // keys written while the connection was down were not reported: walk at the full
        // pace until tracking is back (and that walk catches what was missed)
        this.opts.log?.("key tracking connection lost; walking at full pace until it is back");
        this.events = null;
        this.eventsMode = "off";
        this.eventsRetry = setTimeout(() => {
          this.eventsRetry = null;
          if (gen === this.generation) void this.subscribeEvents(gen);
        }, 5000);
        this.eventsRetry.unref?.();
      },
    );
  }

  private adopt(gen: number, sub: Subscription, mode: LiveEvents): void {
    if (gen !== this.generation) {
      void sub.close().catch(() => undefined);
      return;
    }
    this.events = sub;
    this.eventsMode = mode;
  }

  private onKeyspaceEvent(key: string, event: string): void {
    const gone = event === "del" || event === "expired" || event === "evicted" || event === "rename_from" || event === "unlink";
    this.noteKey(key, gone);
  }

  /** Keys Redis says were written or removed (it does not say which): names are candidates; kv keys are looked at. */
  private onTrackedKeys(keys: string[] | null): void {
    if (keys === null) {
      // the database was flushed: everything may be gone
      this.eagerUntil = Math.max(this.eagerUntil, this.passes + (this.pass ? 2 : 1));
      return;
    }
    for (const key of keys) {
      const n = nameOfKey(key);
      if (!n) continue;
      if (n.kind !== "kv") this.learn(n.kind, n.name);
      else {
        let set = this.kvToCheck.get(n.name);
        if (!set) this.kvToCheck.set(n.name, (set = new Set()));
        set.add(n.key!);
      }
    }
    if (this.kvToCheck.size > 0 && !this.kvCheckTimer) {
      const gen = this.generation;
      this.kvCheckTimer = setTimeout(() => void this.checkKvKeys(gen), KV_CHECK_DELAY_MS);
      this.kvCheckTimer.unref?.();
    }
  }

  private async checkKvKeys(gen: number): Promise<void> {
    this.kvCheckTimer = null;
    const batch = this.kvToCheck;
    this.kvToCheck = new Map();
    try {
      for (const [ns, keys] of batch) {
        const names = [...keys];
        const present = new Set((await this.backend.kvKeySummaries(ns, names)).map((k) => k.key));
        if (gen !== this.generation) return;
        for (const k of names) {
          if (present.has(k)) this.learnKvKey(ns, k);
          else this.forgetKvKey(ns, k);
        }
      }
    } catch (err) {
      this.opts.log?.("reading reported kv keys failed; the walk will count them", err);
    }
  }
}

/** Reported kv keys are looked at together, this long after the first of a batch. */
const KV_CHECK_DELAY_MS = 100;

/** `walked`: seen by the walk (counted); otherwise learnt (a key of a counted-only namespace may exist already: not counted again). */
function addKvKey(found: Found, ns: string, key: string, opts: { smallNamespaceKeys: number; maxCachedKvKeys: number }, walked = false): void {
  let n = found.kv.get(ns);
  if (!n) found.kv.set(ns, (n = { keys: new Set(), count: 0 }));
  if (n.keys === null) {
    // only counted: SCAN may answer a key twice while Redis rehashes; the count is approximate
    if (walked) n.count++;
    return;
  }
  if (n.keys.has(key)) return;
  n.keys.add(key);
  n.count++;
  found.kvKeysHeld++;
  if (n.keys.size > opts.smallNamespaceKeys || found.kvKeysHeld > opts.maxCachedKvKeys) {
    found.kvKeysHeld -= n.keys.size;
    n.keys = null;
  }
}

function removeKvKey(found: Found, ns: string, key: string): void {
  const n = found.kv.get(ns);
  if (!n) return;
  if (n.keys === null) {
    n.count = Math.max(0, n.count - 1);
  } else if (n.keys.delete(key)) {
    n.count--;
    found.kvKeysHeld--;
  }
  if (n.count === 0) found.kv.delete(ns);
}

export { LISTED_KINDS };
