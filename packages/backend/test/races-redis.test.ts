// Races on a real Redis, from several connections at once, many rounds each, with every body
// (or every claim, every generation) accounted for at the end of each round:
// - config compare-and-set: N writers on one generation, exactly one wins (one worker and a
//   rollout over several);
// - dead letters: a worker dead-lettering, a requeuer and a deleter on one queue: every body
//   ends in exactly one place (pending, processing, dead, or deleted and reported so);
// - the sweep against ack and nack, with and without leases, and against a second holder;
// - pool claims from several connections: an item is never held by two at once.
//
// Each actor is its own RedisBackend, so its own connection: the commands really interleave
// in Redis, as they would from several processes. Its own database (./support/redis-dbs);
// names are random per test all the same.
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StaleGenerationError } from "../src/errors";
import { keys } from "../src/keys";
import { pyJsonBytes } from "../src/pyjson";
import { createRedisBackend, type RedisBackend } from "../src/redis";
import { sha1Hex } from "../src/codec";
import { testRedisUrl } from "./support/redis-dbs";

const url = testRedisUrl("packages/backend/test/races-redis.test.ts");

/** Connections racing one another. */
const N = 8;
let conns: RedisBackend[];
let raw: Redis;
const fresh = (what: string) => `race-${what}-${randomBytes(4).toString("hex")}`;
const body = (id: string) => pyJsonBytes({ id, payload: { n: id } });
const text = (b: Buffer) => b.toString("utf8");

beforeAll(async () => {
  raw = new Redis(url, { maxRetriesPerRequest: 1 });
  conns = Array.from({ length: N }, () => createRedisBackend(url));
  // one connection each, really: N distinct client ids
  const ids = await Promise.all(conns.map((c) => c.health().then(() => c.client.client("ID"))));
  expect(new Set(ids).size).toBe(N);
});

afterAll(async () => {
  await Promise.all(conns.map((c) => c.close()));
  raw.disconnect();
});

/** Every body of a queue, by where it is: the three pending lists, processing (ids and bodies), scheduled, dead. */
async function whereabouts(q: string) {
  const [high, normal, low, procIds, procBodies, scheduled, dead] = await Promise.all([
    raw.lrangeBuffer(keys.queueHigh(q), 0, -1),
    raw.lrangeBuffer(keys.queue(q), 0, -1),
    raw.lrangeBuffer(keys.queueLow(q), 0, -1),
    raw.zrange(keys.queueProcessing(q), "0", "-1"),
    raw.hgetallBuffer(keys.queueProcessingBody(q)),
    raw.zrangeBuffer(keys.queueScheduled(q), "0", "-1"),
    raw.lrangeBuffer(keys.queueDead(q), 0, -1),
  ]);
  return {
    pending: [...high, ...normal, ...low].map(text),
    processingIds: procIds.sort(),
    processing: Object.values(procBodies).map(text),
    processingBodyIds: Object.keys(procBodies).sort(),
    scheduled: scheduled.map(text),
    dead: dead.map(text),
  };
}

function counts(list: string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const x of list) m.set(x, (m.get(x) ?? 0) + 1);
  return m;
}

/** A random order of 0..n-1. */
function shuffled(n: number): number[] {
  const order = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

/**
 * Runs `fn` on every connection at once, issued in a random order (what is sent first tends
 * to run first: a fixed order would decide every race the same way); settles every call and
 * answers the results by connection.
 */
async function allAtOnce<T>(fn: (c: RedisBackend, i: number) => Promise<T>): Promise<Array<PromiseSettledResult<T>>> {
  const results = new Array<Promise<PromiseSettledResult<T>>>(N);
  for (const i of shuffled(N))
    results[i] = fn(conns[i]!, i).then(
      (value) => ({ status: "fulfilled" as const, value }),
      (reason: unknown) => ({ status: "rejected" as const, reason }),
    );
  return Promise.all(results);
}

describe("config compare-and-set from N connections", () => {
  it("exactly one of N writers on one generation wins, 150 generations in a row; the stored config is the winner's", async () => {
    const type = fresh("cas");
    await conns[0]!.workerRegister(type, "w", {});
    for (let gen = 0; gen < 150; gen++) {
      const results = await allAtOnce((c, i) => c.workerSetConfig(type, "w", { writer: i, gen }, { expectedGen: gen }));
      const won = results.flatMap((r, i) => (r.status === "fulfilled" ? [{ i, ...r.value }] : []));
      expect(won, `generation ${gen}`).toHaveLength(1);
      expect(won[0]!.gen).toBe(gen + 1);
      for (const r of results) {
        if (r.status === "fulfilled") continue;
        // a loser ran after the winner: it saw the winner's generation, and wrote nothing
        expect(r.reason).toBeInstanceOf(StaleGenerationError);
        expect((r.reason as StaleGenerationError).currentGen).toBe(gen + 1);
      }
      const [cfg, storedGen] = await raw.mget(keys.worker(type, "w", "config"), keys.worker(type, "w", "gen"));
      expect(JSON.parse(cfg!)).toEqual({ writer: won[0]!.i, gen });
      expect(storedGen).toBe(String(gen + 1));
    }
  });

  it("N rollouts over 4 workers on the same generations: exactly one wins, all or nothing, 100 rounds", async () => {
    const type = fresh("rollout");
    const ids = ["a", "b", "c", "d"];
    for (const id of ids) await conns[0]!.workerRegister(type, id, {});
    for (let round = 0; round < 100; round++) {
      const results = await allAtOnce((c, i) => c.workerSetConfigMany(ids.map((id) => ({ automationType: type, workerId: id, config: { writer: i, round }, expectedGen: round }))));
      const won = results.flatMap((r, i) => (r.status === "fulfilled" ? [i] : []));
      expect(won, `round ${round}`).toHaveLength(1);
      for (const r of results) if (r.status === "rejected") expect(r.reason).toBeInstanceOf(StaleGenerationError);
      const stored = await raw.mget(...ids.flatMap((id) => [keys.worker(type, id, "config"), keys.worker(type, id, "gen")]));
      for (let k = 0; k < ids.length; k++) {
        expect(JSON.parse(stored[2 * k]!), `${ids[k]} in round ${round}`).toEqual({ writer: won[0], round });
        expect(stored[2 * k + 1]).toBe(String(round + 1));
      }
    }
  });

  it("a rollout racing single-worker writes: either the rollout, all of it, or one single write per worker, never a mix", async () => {
    const type = fresh("mixed");
    const ids = ["a", "b", "c"];
    for (const id of ids) await conns[0]!.workerRegister(type, id, {});
    let rolloutsWon = 0;
    let rolloutsLost = 0;
    for (let round = 0; round < 120; round++) {
      const gens = (await raw.mget(...ids.map((id) => keys.worker(type, id, "gen")))).map(Number);
      const results = await allAtOnce<unknown>((c, i) => {
        if (i === 0) {
          return c.workerSetConfigMany(ids.map((id, k) => ({ automationType: type, workerId: id, config: { by: "rollout", round }, expectedGen: gens[k]! })));
        }
        const k = (i + round) % ids.length;
        return c.workerSetConfig(type, ids[k]!, { by: `single-${i}`, round }, { expectedGen: gens[k]! });
      });
      const rollout = results[0]!;
      const configs = (await raw.mget(...ids.map((id) => keys.worker(type, id, "config")))).map((c) => JSON.parse(c!) as { by: string; round: number });
      const gensAfter = (await raw.mget(...ids.map((id) => keys.worker(type, id, "gen")))).map(Number);
      const singles = results.slice(1).flatMap((r, j) => (r.status === "fulfilled" ? [{ by: `single-${j + 1}`, k: (j + 1 + round) % ids.length }] : []));
      // every writer started from the same generations, and every worker is the target of some
      // single write: the rollout wins only if it ran before all of them (then none of them
      // wins), else exactly one single write per worker wins and the rollout writes nothing
      if (rollout.status === "fulfilled") {
        rolloutsWon++;
        expect(singles, `round ${round}`).toEqual([]);
        expect(configs, `round ${round}`).toEqual(ids.map(() => ({ by: "rollout", round })));
      } else {
        rolloutsLost++;
        expect(rollout.reason).toBeInstanceOf(StaleGenerationError);
        expect(singles.map((s) => s.k).sort(), `round ${round}: one single write per worker`).toEqual(ids.map((_, k) => k));
        for (const s of singles) expect(configs[s.k], `round ${round}`).toEqual({ by: s.by, round });
      }
      expect(gensAfter, `round ${round}: one generation per worker`).toEqual(gens.map((g) => g + 1));
    }
    // both outcomes happened: the race was real
    expect(rolloutsWon).toBeGreaterThan(0);
    expect(rolloutsLost).toBeGreaterThan(0);
  });
});

describe("dead letters: requeue against delete against a worker dead-lettering", () => {
  /**
   * A worker reserves and fails every task it gets (to the dead-letter list) while a requeuer
   * moves dead letters back and a deleter deletes some; each on its own connection. At the end
   * every body is in exactly one place, or was reported deleted exactly once.
   */
  async function race(opts: { bodies: number; rounds: number; requeue: "refs" | "all"; remove: "refs" | "all" }) {
    const q = fresh("dlq");
    const ids = Array.from({ length: opts.bodies }, (_, i) => `t${i}`);
    const bodies = new Map(ids.map((id) => [sha1Hex(body(id)), text(body(id))]));
    await conns[0]!.queuePushMany(
      q,
      ids.map((id) => ({ body: body(id) })),
    );
    const deletedByRef = new Map<string, number>();
    let deletedByAll = 0;
    let requeued = 0;
    let failed = 0;
    let stop = false;
    const refs = [...bodies.keys()];
    const pick = (n: number) => Array.from({ length: n }, () => refs[Math.floor(Math.random() * refs.length)]!);

    const worker = async (c: RedisBackend) => {
      while (!stop) {
        const got = await c.queueReserveLease(q, 0, 60);
        if (got === null) {
          await new Promise((r) => setImmediate(r));
          continue;
        }
        const id = JSON.parse(text(got.body)).id as string;
        // nothing sweeps here and the visibility is long: the lease holds, the fail must land
        expect(await c.queueFail(q, id, got.body, { lease: got.lease })).toBe(true);
        failed++;
      }
    };
    const requeuer = async (c: RedisBackend) => {
      for (let i = 0; i < opts.rounds; i++) {
        const which = opts.requeue === "all" && i % 3 === 0 ? { all: true as const } : { refs: pick(6) };
        const res = await c.dlqRequeue(q, which);
        requeued += res.requeued;
        if ("refs" in which) expect(res.requeued + res.missing.length, "each ref moved or missing, never both, never twice").toBe(new Set(which.refs).size);
      }
    };
    const deleter = async (c: RedisBackend) => {
      for (let i = 0; i < opts.rounds; i++) {
        if (opts.remove === "all" && i % 25 === 24) {
          // (not `deletedByAll += await ...`: that reads the sum before the await, losing the other deleter's)
          const { deleted } = await c.dlqDelete(q, { all: true });
          deletedByAll += deleted;
          continue;
        }
        const want = [...new Set(pick(2))];
        const res = await c.dlqDelete(q, { refs: want });
        expect(res.deleted + res.missing.length, "each ref deleted or missing, never both, never twice").toBe(want.length);
        for (const ref of want) if (!res.missing.includes(ref)) deletedByRef.set(ref, (deletedByRef.get(ref) ?? 0) + 1);
      }
    };

    const workers = [worker(conns[0]!), worker(conns[1]!)];
    await Promise.all([requeuer(conns[2]!), requeuer(conns[3]!), deleter(conns[4]!), deleter(conns[5]!)]);
    stop = true;
    await Promise.all(workers);

    const w = await whereabouts(q);
    // the workers finished what they reserved: nothing is left in processing
    expect(w.processingIds).toEqual([]);
    expect(w.processingBodyIds).toEqual([]);
    const pending = counts(w.pending);
    const dead = counts(w.dead);
    let deletedTotal = 0;
    for (const [ref, b] of bodies) {
      const deleted = deletedByRef.get(ref) ?? 0;
      deletedTotal += deleted;
      const places = (pending.get(b) ?? 0) + (dead.get(b) ?? 0) + deleted;
      if (opts.remove === "refs") expect(places, `body ${b}: pending ${pending.get(b) ?? 0}, dead ${dead.get(b) ?? 0}, deleted ${deleted}`).toBe(1);
      else expect(places, `body ${b}`).toBeLessThanOrEqual(1);
    }
    // nothing else appeared, nothing was lost: the deletes by `all` account for the rest
    for (const b of [...pending.keys(), ...dead.keys()]) expect([...bodies.values()]).toContain(b);
    expect(w.pending.length + w.dead.length + deletedTotal + deletedByAll).toBe(opts.bodies);
    // the race happened: bodies were dead-lettered, moved back, and deleted
    expect(failed).toBeGreaterThanOrEqual(opts.bodies);
    expect(requeued).toBeGreaterThan(0);
    expect(deletedTotal + deletedByAll).toBeGreaterThan(0);
    return { failed, requeued, deleted: deletedTotal + deletedByAll };
  }

  it("by ref: every body ends pending, dead, or deleted and reported, exactly once", async () => {
    await race({ bodies: 120, rounds: 150, requeue: "refs", remove: "refs" });
  });

  it("requeue all and delete all among the refs: no body lost, none duplicated", async () => {
    await race({ bodies: 120, rounds: 150, requeue: "all", remove: "all" });
  });
});

describe("the sweep against ack and nack", () => {
  type Outcome = "ack" | "nack";
  /**
   * Rounds of: K tasks reserved with 1 s of visibility, then at once, from separate
   * connections, the holders end each (ack or nack, with or without its lease) while a
   * sweeper sweeps with a clock past every deadline, several times. Until both sides have
   * won some (at most `maxRounds`).
   */
  async function rounds(opts: { end: Outcome; lease: boolean; delay?: number; secondHolder?: boolean; maxRounds?: number }) {
    const q = fresh(`sweep-${opts.end}`);
    const K = 24;
    const maxRounds = opts.maxRounds ?? 300;
    let endedWon = 0;
    let sweepWon = 0;
    let round = 0;
    for (; round < maxRounds && (round < 20 || endedWon === 0 || sweepWon === 0); round++) {
      const ids = Array.from({ length: K }, (_, i) => `r${round}-${i}`);
      await conns[0]!.queuePushMany(
        q,
        ids.map((id) => ({ body: body(id) })),
      );
      const held = await Promise.all(ids.map(() => conns[0]!.queueReserveLease(q, 0, 1)));
      for (const h of held) expect(h?.lease).toBeTruthy();
      const future = Date.now() / 1000 + 3600;
      const holders = conns.slice(1, N - 2);
      const sweepers = conns.slice(N - 2);
      // a second holder reserves what the sweep put back, while the first ones still act on their own
      const second: Array<{ id: string; lease: string | null }> = [];
      // the holders' calls and the sweeps, issued in a random order
      const calls: Array<() => Promise<unknown>> = held.map((h, k) => () => {
        const id = JSON.parse(text(h!.body)).id as string;
        const c = holders[k % holders.length]!;
        const lease = opts.lease ? { lease: h!.lease } : {};
        return opts.end === "ack" ? c.queueAck(q, id, lease) : c.queueNack(q, id, h!.body, { delaySeconds: opts.delay ?? 0, ...lease });
      });
      for (const c of sweepers)
        calls.push(
          () => c.queueSweepExpired(q, future),
          () => c.queueSweepExpired(q, future),
        );
      const issued = new Array<Promise<unknown>>(calls.length);
      for (const i of shuffled(calls.length)) issued[i] = calls[i]!();
      const ends = issued.slice(0, K) as Array<Promise<boolean>>;
      const sweeps = issued.slice(K) as Array<Promise<{ requeued: number; orphaned: string[] }>>;
      let sweepsDone = false;
      void Promise.allSettled(sweeps).then(() => (sweepsDone = true));
      const reserving = opts.secondHolder
        ? (async () => {
            // until the sweeps are over and the queue is empty; a deadline far past the sweeps' clock
            for (;;) {
              const got = await conns[N - 1]!.queueReserveLease(q, 0, 7200);
              if (got === null) {
                if (sweepsDone) break;
                await new Promise((r) => setImmediate(r));
                continue;
              }
              second.push({ id: JSON.parse(text(got.body)).id as string, lease: got.lease });
            }
          })()
        : Promise.resolve();
      const [ended, swept] = await Promise.all([Promise.all(ends), Promise.all(sweeps), reserving]);
      const requeued = swept.reduce((a, s) => a + s.requeued, 0);
      for (const s of swept) expect(s.orphaned, "a body went missing from :processing:body").toEqual([]);
      const trueCount = ended.filter(Boolean).length;
      const w = await whereabouts(q);
      const here = counts([...w.pending, ...w.scheduled]);

      if (opts.end === "ack") {
        // ack true: the holder finished it (gone); false: the sweep had it, it is back once
        ended.forEach((ok, k) => {
          const b = text(body(ids[k]!));
          const back = (here.get(b) ?? 0) + (second.some((s) => s.id === ids[k]) ? 1 : 0);
          expect(back, `${ids[k]}: ack answered ${ok}`).toBe(ok ? 0 : 1);
        });
        expect(trueCount + requeued).toBe(K);
      } else if (opts.lease) {
        // nack with its lease: true means the holder put it back, false that the sweep did; once either way
        for (const id of ids) {
          const b = text(body(id));
          expect((here.get(b) ?? 0) + (second.some((s) => s.id === id) ? 1 : 0), id).toBe(1);
        }
        expect(trueCount + requeued).toBe(K);
      } else {
        // without a lease, as Python: every nack requeues, so a body the sweep had already
        // put back is there twice; never lost, never more
        expect(trueCount).toBe(K);
        let twice = 0;
        for (const id of ids) {
          const n = (here.get(text(body(id))) ?? 0) + second.filter((s) => s.id === id).length;
          expect(n, id).toBeGreaterThanOrEqual(1);
          expect(n, id).toBeLessThanOrEqual(2);
          if (n === 2) twice++;
        }
        expect(twice).toBe(requeued);
      }
      // :processing and :processing:body name the same reservations
      expect(w.processingBodyIds).toEqual(w.processingIds);
      // the second holder's reservations were not touched by the first holders (leases)
      if (opts.secondHolder) {
        expect(w.processingIds).toEqual(
          second
            .filter((s) => s.lease !== null)
            .map((s) => s.id)
            .sort(),
        );
        for (const s of second) expect(await conns[N - 1]!.queueAck(q, s.id, { lease: s.lease })).toBe(true);
      } else {
        expect(w.processingIds).toEqual([]);
      }
      endedWon += K - requeued;
      sweepWon += requeued;
      await raw.del(keys.queue(q), keys.queueScheduled(q), keys.queueProcessing(q), keys.queueProcessingBody(q));
    }
    // both sides won some: the race was real
    expect(endedWon, `after ${round} rounds`).toBeGreaterThan(0);
    expect(sweepWon, `after ${round} rounds`).toBeGreaterThan(0);
  }

  it("ack with its lease: each task is acked or swept back, exactly once", async () => {
    await rounds({ end: "ack", lease: true });
  });

  it("ack without a lease: each task is acked or swept back, exactly once", async () => {
    await rounds({ end: "ack", lease: false });
  });

  it("nack with its lease: each task is back once, whoever put it there", async () => {
    await rounds({ end: "nack", lease: true });
  });

  it("nack with its lease and a delay: back once, scheduled or pending", async () => {
    await rounds({ end: "nack", lease: true, delay: 30 });
  });

  it("nack without a lease (Python's semantics): never lost; twice exactly when the sweep had put it back", async () => {
    await rounds({ end: "nack", lease: false });
  });

  it("with a second holder reserving what the sweep put back, the first holders' leased acks never touch its reservations", async () => {
    await rounds({ end: "ack", lease: true, secondHolder: true });
  });
});

describe("pool claims from several connections", () => {
  it("an item is never held by two at once (N claimers, 4 items, 60 claims each)", async () => {
    const pool = fresh("pool");
    const ITEMS = 4;
    for (let i = 0; i < ITEMS; i++) await conns[0]!.poolPut(pool, `i${i}`, `payload ${i}`, { k: i % 2 === 0 ? "even" : "odd" });
    const holder = new Map<string, number>();
    let claims = 0;
    let misses = 0;
    const doubles: string[] = [];
    const claimer = async (c: RedisBackend, who: number) => {
      for (let n = 0; n < 60; n++) {
        const where = n % 3 === 0 ? { k: who % 2 === 0 ? "even" : "odd" } : {};
        const item = await c.poolClaimAny(pool, where, 60);
        if (item === null) {
          misses++;
          await new Promise((r) => setImmediate(r));
          continue;
        }
        claims++;
        if (holder.has(item.id)) doubles.push(`${item.id}: claimer ${who} while ${holder.get(item.id)} held it`);
        holder.set(item.id, who);
        // hold it across a few round trips of the others
        await c.poolSize(pool);
        if (holder.get(item.id) === who) holder.delete(item.id);
        // the mark goes before the claim key: nobody can be granted it while we still count as holding it
        expect(await c.poolRelease(pool, item.id)).toBe(true);
      }
    };
    await Promise.all(conns.map((c, i) => claimer(c, i)));
    expect(doubles).toEqual([]);
    // contention happened: more claims than items, and some claimers found every match taken
    expect(claims).toBeGreaterThan(ITEMS);
    expect(misses).toBeGreaterThan(0);
    // every claim was released, no item lost
    const [, claimKeys] = await raw.scan("0", "MATCH", `${keys.poolClaimPrefix(pool)}*`, "COUNT", 100_000);
    expect(claimKeys).toEqual([]);
    expect(await raw.hlen(keys.pool(pool))).toBe(ITEMS);
  });
});
