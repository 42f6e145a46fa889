// Queues over Redis (the QueuesBackend part of the contract): push, reserve (reserve-6.lua),
// extend, ack/nack/fail, the sweep, and the console's reads (depths, detail).
import type { ChainableCommander } from "ioredis";
import { toBuffer } from "../codec";
import { keys, priorityFromInt, queueKeyForPriority, queueNameOfKey, type Priority } from "../keys";
import { leaseNowSeconds } from "../lease-clock";
import { pyFloatRepr } from "../pyjson";
import type { QueuesBackend, BytesLike, QueueDepths, QueueDetail, SweepResult, LeaseOption, ReservedTask } from "../types";
import { nowSeconds, sleep } from "../shared";
import { callScript, isWrongTypeError, mapRedisError, type PipelineResults } from "./connection";
import { scanKeys, type RedisContext } from "./context";
import { QueueWaker } from "./queue-waker";
import { asBuffer, asBufferArray, asNumber, scoredPairs } from "./replies";

function reserveOnce(ctx: RedisContext, name: string, visibilitySeconds: number): Promise<ReservedTask | null> {
  return ctx.run(async (r) => {
    const res = await callScript(
      r,
      "reserve",
      [keys.queueScheduled(name), keys.queueHigh(name), keys.queue(name), keys.queueLow(name), keys.queueProcessing(name), keys.queueProcessingBody(name)],
      [pyFloatRepr(leaseNowSeconds()), String(visibilitySeconds)],
      { buffer: true },
    );
    if (!Array.isArray(res)) return null;
    const body = asBuffer(res[0]);
    if (!body) return null;
    const lease = asBuffer(res[1])?.toString("latin1") ?? "";
    return { body, lease: lease === "" ? null : lease };
  });
}

/** Expired reservations requeued per sweep-3.lua call. */
export const SWEEP_CHUNK = 1000;

type DepthField = "high" | "normal" | "low" | "processing" | "overdue" | "scheduled" | "due" | "dead";

/**
 * The reads behind one queue's depths, in the order they are sent: the QueueDepths field each
 * reply fills, and the part `corrupt` names when its key holds another type. Commands and
 * replies both come from this one table, so a read added anywhere cannot shift the others.
 */
const DEPTH_READS: ReadonlyArray<{ field: DepthField; part: string; send(p: ChainableCommander, name: string, now: string): void }> = [
  { field: "high", part: "high", send: (p, n) => p.llen(keys.queueHigh(n)) },
  { field: "normal", part: "normal", send: (p, n) => p.llen(keys.queue(n)) },
  { field: "low", part: "low", send: (p, n) => p.llen(keys.queueLow(n)) },
  { field: "processing", part: "processing", send: (p, n) => p.zcard(keys.queueProcessing(n)) },
  { field: "overdue", part: "processing", send: (p, n, now) => p.zcount(keys.queueProcessing(n), "-inf", now) },
  { field: "scheduled", part: "scheduled", send: (p, n) => p.zcard(keys.queueScheduled(n)) },
  { field: "due", part: "scheduled", send: (p, n, now) => p.zcount(keys.queueScheduled(n), "-inf", now) },
  { field: "dead", part: "dead", send: (p, n) => p.llen(keys.queueDead(n)) },
];

/** How many replies queueDepthCommands adds to a pipeline per queue. */
export const DEPTH_REPLIES = DEPTH_READS.length;

/** Queues the reads of one queue's depths on `p` (DEPTH_REPLIES commands; `depthsFrom` reads their replies). */
export function queueDepthCommands(p: ChainableCommander, name: string, now: number): void {
  const nowArg = pyFloatRepr(now);
  for (const read of DEPTH_READS) read.send(p, name, nowArg);
}

/**
 * The DEPTH_REPLIES replies of queueDepthCommands as depths. A key of another Redis type reads
 * as empty and its part is listed in `corrupt` (one bad key must not fail a whole page of queues).
 */
export function depthsFrom(rawUrl: string, name: string, res: PipelineResults): QueueDepths {
  const corrupt: string[] = [];
  const n = {} as Record<DepthField, number>;
  DEPTH_READS.forEach((read, i) => {
    const [err, x] = res[i]!;
    if (!err) n[read.field] = asNumber(x);
    else if (!isWrongTypeError(err)) throw mapRedisError(rawUrl, err);
    else {
      if (!corrupt.includes(read.part)) corrupt.push(read.part);
      n[read.field] = 0;
    }
  });
  return {
    name,
    pending: { high: n.high, normal: n.normal, low: n.low, total: n.high + n.normal + n.low },
    processing: n.processing,
    overdue: n.overdue,
    scheduled: n.scheduled,
    due: n.due,
    dead: n.dead,
    ...(corrupt.length > 0 ? { corrupt } : {}),
  };
}

export function redisQueues(ctx: RedisContext): QueuesBackend {
  const api: QueuesBackend = {
    async queuePush(name: string, body: BytesLike, opts: { priority?: number | Priority } = {}): Promise<void> {
      const p = opts.priority ?? 0;
      const priority = typeof p === "number" ? priorityFromInt(p) : p;
      await ctx.run((r) => r.rpush(queueKeyForPriority(name, priority), toBuffer(body)));
    },

    async queuePushMany(name: string, items: Array<{ body: BytesLike; priority?: Priority }>): Promise<void> {
      if (items.length === 0) return;
      const byList = new Map<string, Buffer[]>();
      for (const it of items) {
        const k = queueKeyForPriority(name, it.priority ?? "normal");
        const list = byList.get(k) ?? [];
        list.push(toBuffer(it.body));
        byList.set(k, list);
      }
      await ctx.run(async (r) => {
        const m = r.multi();
        for (const [k, bodies] of byList) m.rpush(k, ...bodies);
        await ctx.conn.execValues(m);
      });
    },

    async queueSize(name: string): Promise<number> {
      return ctx.run(async (r) => {
        const res = await ctx.conn.execValues(r.pipeline().llen(keys.queueHigh(name)).llen(keys.queue(name)).llen(keys.queueLow(name)));
        return res.reduce<number>((a, v) => a + asNumber(v), 0);
      });
    },

    async queuePeek(name: string, n: number): Promise<Buffer[]> {
      if (n <= 0) return [];
      return ctx.run(async (r) => {
        const res = await ctx.conn.execValues(
          r
            .pipeline()
            .lrangeBuffer(keys.queueHigh(name), 0, n - 1)
            .lrangeBuffer(keys.queue(name), 0, n - 1)
            .lrangeBuffer(keys.queueLow(name), 0, n - 1),
        );
        return res.flatMap((v) => asBufferArray(v)).slice(0, n);
      });
    },

    async queueReserve(name: string, timeoutSeconds: number, visibilitySeconds: number): Promise<Buffer | null> {
      return (await api.queueReserveLease(name, timeoutSeconds, visibilitySeconds))?.body ?? null;
    },

    async queueReserveLease(name: string, timeoutSeconds: number, visibilitySeconds: number): Promise<ReservedTask | null> {
      // Scripts cannot block, so waiting is a poll with a short, growing pause.
      const deadline = performance.now() + Math.max(0, timeoutSeconds) * 1000;
      let pause = 25;
      for (;;) {
        const got = await reserveOnce(ctx, name, visibilitySeconds);
        if (got !== null) return got;
        const left = deadline - performance.now();
        if (left <= 0) return null;
        await sleep(Math.min(pause, left));
        pause = Math.min(pause * 2, 200);
      }
    },

    async queueWait(name: string, timeoutSeconds: number): Promise<boolean> {
      let waker = ctx.wakers.get(name);
      if (!waker) {
        waker = new QueueWaker(ctx.rawUrl, ctx.opts, [keys.queueHigh(name), keys.queue(name), keys.queueLow(name)]);
        ctx.wakers.set(name, waker);
      }
      return waker.wait(Math.max(0, timeoutSeconds) * 1000);
    },

    async queueExtend(name: string, taskId: string, lease: string, visibilitySeconds: number): Promise<string | null> {
      return ctx.run(async (r) => {
        const res = await callScript(r, "extend", [keys.queueProcessing(name)], [taskId, lease, pyFloatRepr(leaseNowSeconds()), String(visibilitySeconds)], {
          buffer: true,
        });
        return asBuffer(res)?.toString("latin1") ?? null;
      });
    },

    async queueAck(name: string, taskId: string, opts: LeaseOption = {}): Promise<boolean> {
      return ctx.run(async (r) => asNumber(await callScript(r, "ack", [keys.queueProcessing(name), keys.queueProcessingBody(name)], [taskId, opts.lease ?? ""])) > 0);
    },

    async queueNack(name: string, taskId: string, body: BytesLike, opts: { delaySeconds: number } & LeaseOption): Promise<boolean> {
      const res = await ctx.run((r) =>
        callScript(
          r,
          "nack",
          [keys.queueProcessing(name), keys.queueProcessingBody(name), keys.queueScheduled(name), keys.queue(name)],
          [taskId, toBuffer(body), pyFloatRepr(opts.delaySeconds), pyFloatRepr(nowSeconds()), opts.lease ?? ""],
        ),
      );
      // Python's queue_nack always answers True: the body is back on the queue either way.
      // Only a lost lease (-1) changed nothing.
      return asNumber(res) !== -1;
    },

    async queueFail(name: string, taskId: string, body: BytesLike, opts: LeaseOption = {}): Promise<boolean> {
      return ctx.run(
        async (r) =>
          asNumber(await callScript(r, "fail", [keys.queueProcessing(name), keys.queueProcessingBody(name), keys.queueDead(name)], [taskId, toBuffer(body), opts.lease ?? ""])) > 0,
      );
    },

    async queueSweepExpired(name: string, now?: number): Promise<SweepResult> {
      const t = pyFloatRepr(now ?? nowSeconds());
      return ctx.run(async (r) => {
        const result: SweepResult = { requeued: 0, orphaned: [] };
        // Chunks of SWEEP_CHUNK, one atomic script each: a backlog of a million expired
        // reservations never holds Redis for more than a couple of milliseconds at a time.
        for (;;) {
          const res = (await callScript(r, "sweep", [keys.queueProcessing(name), keys.queueProcessingBody(name), keys.queue(name)], [t, String(SWEEP_CHUNK)])) as unknown[];
          result.requeued += asNumber(res[0]);
          for (const v of res.slice(1, -1)) result.orphaned.push(asBuffer(v)?.toString("utf8") ?? "");
          if (asNumber(res[res.length - 1]) < SWEEP_CHUNK) return result;
        }
      });
    },

    async queueNames(): Promise<string[]> {
      return ctx.run(async (r) => {
        const names = new Set<string>();
        for (const k of await scanKeys(r, "fleet:queue:*")) {
          const n = queueNameOfKey(k);
          if (n !== null) names.add(n);
        }
        return [...names].sort();
      });
    },

    async queuesExist(names: string[]): Promise<boolean[]> {
      if (names.length === 0) return [];
      return ctx.run(async (r) => {
        const p = r.pipeline();
        for (const n of names) {
          p.exists(keys.queue(n), keys.queueHigh(n), keys.queueLow(n), keys.queueProcessing(n), keys.queueProcessingBody(n), keys.queueScheduled(n), keys.queueDead(n));
        }
        return (await ctx.conn.execValues(p)).map((v) => asNumber(v) > 0);
      });
    },

    async queueDepths(names: string[], now?: number): Promise<QueueDepths[]> {
      if (names.length === 0) return [];
      const t = now ?? nowSeconds();
      return ctx.run(async (r) => {
        const p = r.pipeline();
        for (const n of names) queueDepthCommands(p, n, t);
        const res = await ctx.conn.exec(p);
        return names.map((n, i) => depthsFrom(ctx.rawUrl, n, res.slice(i * DEPTH_REPLIES, (i + 1) * DEPTH_REPLIES)));
      });
    },

    async queueDetail(name: string, limit: number, now?: number): Promise<QueueDetail> {
      const t = now ?? nowSeconds();
      const n = Math.max(0, limit);
      return ctx.run(async (r) => {
        const p = r.pipeline();
        queueDepthCommands(p, name, t);
        if (n > 0) {
          p.lrangeBuffer(keys.queueHigh(name), 0, n - 1)
            .lrangeBuffer(keys.queue(name), 0, n - 1)
            .lrangeBuffer(keys.queueLow(name), 0, n - 1)
            .zrangeBuffer(keys.queueProcessing(name), 0, String(n - 1), "WITHSCORES")
            .zrangeBuffer(keys.queueScheduled(name), 0, String(n - 1), "WITHSCORES");
        }
        const res = await ctx.conn.exec(p);
        const depths = depthsFrom(ctx.rawUrl, name, res.slice(0, DEPTH_REPLIES));
        if (n === 0) return { depths, pending: [], processing: [], scheduled: [] };
        // the item reads, in the order sent above; one fails only on a key of another type, which the depths already list
        const [high, normal, low, processing, scheduled] = res.slice(DEPTH_REPLIES).map(([err, x]) => (err ? [] : x));
        const pending: QueueDetail["pending"] = [];
        for (const [priority, reply] of [
          ["high", high],
          ["normal", normal],
          ["low", low],
        ] as const) {
          for (const body of asBufferArray(reply)) pending.push({ priority, body });
        }
        const proc = scoredPairs(processing);
        let bodies: Array<Buffer | null> = [];
        if (proc.length > 0) {
          try {
            bodies = await r.hmgetBuffer(keys.queueProcessingBody(name), ...proc.map(([id]) => id));
          } catch (err) {
            if (!isWrongTypeError(err)) throw err;
            depths.corrupt = [...(depths.corrupt ?? []), "processing:body"];
          }
        }
        return {
          depths,
          pending: pending.slice(0, n),
          processing: proc.map(([id, deadline], i) => ({ id: id.toString("utf8"), deadline, body: bodies[i] ?? null })),
          scheduled: scoredPairs(scheduled).map(([body, readyAt]) => ({ readyAt, body })),
        };
      });
    },
  };
  return api;
}
