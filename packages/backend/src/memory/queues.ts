// Queues in memory (the QueuesBackend part of the contract): the same steps as reserve-6.lua,
// extend-1.lua, ack-2.lua, nack-4.lua, fail-3.lua and sweep-3.lua, and the console's reads.

import { keys, queueKeyForPriority, queueNameOfKey, queuePriorityKeys, type Priority } from "../keys";
import { leaseNowSeconds } from "../lease-clock";
import type { QueuesBackend, BytesLike, QueueDepths, QueueDetail, SweepResult, LeaseOption, ReservedTask } from "../types";
import { taskIdOfBody } from "../task-body";
import { cmp, nowSeconds, sleep } from "../shared";
import { normalizePriority, wrongTypeAs, type MemoryContext } from "./context";

/** A deadline as lease text: any exact text of the double will do (Redis answers "%.17g"). */
function leaseText(deadline: number): string {
  return String(deadline);
}

/** How often a waiting reserve looks again. */
const POLL_MS = 20;

/** Moves due `:scheduled` bodies onto the normal list, soonest first. */
function drainScheduled(ctx: MemoryContext, name: string, now: number): void {
  const sched = keys.queueScheduled(name);
  const due = ctx.raw.zrangeByScore(sched, 0, now);
  if (!due.length) return;
  ctx.raw.zremRangeByScore(sched, 0, now);
  ctx.raw.rpush(keys.queue(name), ...due.map((e) => e.member));
}

function reserveOnce(ctx: MemoryContext, name: string, visibilitySeconds: number): ReservedTask | null {
  const now = leaseNowSeconds();
  drainScheduled(ctx, name, now);
  let body: Buffer | null = null;
  for (const k of queuePriorityKeys(name)) {
    body = ctx.raw.lpop(k);
    if (body) break;
  }
  if (!body) return null;
  const id = taskIdOfBody(body);
  if (id === null) return { body, lease: null }; // delivered once, never registered
  const deadline = now + Math.max(1, visibilitySeconds);
  ctx.raw.zadd(keys.queueProcessing(name), deadline, id);
  ctx.raw.hset(keys.queueProcessingBody(name), { [id]: body });
  return { body, lease: leaseText(deadline) };
}

/** Whether the reservation of `taskId` is still the one `lease` names (true without a lease). */
function holds(ctx: MemoryContext, name: string, taskId: string, lease: string | null | undefined): boolean {
  if (!lease) return true;
  const cur = ctx.raw.zscore(keys.queueProcessing(name), taskId);
  return cur !== null && cur === Number(lease);
}

function endReservation(ctx: MemoryContext, name: string, taskId: string): boolean {
  const removed = ctx.raw.zrem(keys.queueProcessing(name), taskId);
  ctx.raw.hdel(keys.queueProcessingBody(name), taskId);
  return removed;
}

/** One queue's depths. As Redis: a key of another type reads as empty and its part is listed in `corrupt`. */
export function queueDepthsOf(ctx: MemoryContext, name: string, now: number): QueueDepths {
  const [hk, nk, lk] = queuePriorityKeys(name);
  const corrupt: string[] = [];
  const part = (what: string, read: () => number): number => {
    const n = wrongTypeAs(null, read);
    if (n !== null) return n;
    if (!corrupt.includes(what)) corrupt.push(what);
    return 0;
  };
  const high = part("high", () => ctx.raw.llen(hk));
  const normal = part("normal", () => ctx.raw.llen(nk));
  const low = part("low", () => ctx.raw.llen(lk));
  const processing = part("processing", () => ctx.raw.zcard(keys.queueProcessing(name)));
  const overdue = part("processing", () => ctx.raw.zrangeByScore(keys.queueProcessing(name), -Infinity, now).length);
  const scheduled = part("scheduled", () => ctx.raw.zcard(keys.queueScheduled(name)));
  const due = part("scheduled", () => ctx.raw.zrangeByScore(keys.queueScheduled(name), -Infinity, now).length);
  const dead = part("dead", () => ctx.raw.llen(keys.queueDead(name)));
  return {
    name,
    pending: { high, normal, low, total: high + normal + low },
    processing,
    overdue,
    scheduled,
    due,
    dead,
    ...(corrupt.length > 0 ? { corrupt } : {}),
  };
}

export function memoryQueues(ctx: MemoryContext): QueuesBackend {
  const { raw } = ctx;
  /** Waiters of `queueWait`, by pending-list key. */
  const listWaiters = new Map<string, Set<() => void>>();
  const api: QueuesBackend = {
    async queuePush(name: string, body: BytesLike, opts?: { priority?: number | Priority }): Promise<void> {
      raw.rpush(queueKeyForPriority(name, normalizePriority(opts?.priority)), body);
    },

    async queuePushMany(name: string, items: Array<{ body: BytesLike; priority?: Priority }>): Promise<void> {
      for (const it of items) raw.rpush(queueKeyForPriority(name, it.priority ?? "normal"), it.body);
    },

    async queueSize(name: string): Promise<number> {
      return queuePriorityKeys(name).reduce((n, k) => n + raw.llen(k), 0);
    },

    async queuePeek(name: string, n: number): Promise<Buffer[]> {
      const out: Buffer[] = [];
      for (const k of queuePriorityKeys(name)) {
        const left = n - out.length;
        if (left <= 0) break;
        out.push(...raw.lrange(k, 0, left - 1));
      }
      return out;
    },

    async queueReserve(name: string, timeoutSeconds: number, visibilitySeconds: number): Promise<Buffer | null> {
      return (await api.queueReserveLease(name, timeoutSeconds, visibilitySeconds))?.body ?? null;
    },

    async queueReserveLease(name: string, timeoutSeconds: number, visibilitySeconds: number): Promise<ReservedTask | null> {
      const deadline = Date.now() + Math.max(0, timeoutSeconds) * 1000;
      for (;;) {
        const got = reserveOnce(ctx, name, visibilitySeconds);
        if (got) return got;
        const left = deadline - Date.now();
        if (left <= 0 || ctx.isClosed()) return null;
        await sleep(Math.min(POLL_MS, left));
      }
    },

    async queueWait(name: string, timeoutSeconds: number): Promise<boolean> {
      const lists = queuePriorityKeys(name);
      if (lists.some((k) => raw.llen(k) > 0)) return true;
      if (ctx.isClosed()) return false;
      if (!raw.onListPush) {
        raw.onListPush = (key) => {
          const ws = listWaiters.get(key);
          if (ws) for (const w of [...ws]) w();
        };
      }
      return new Promise<boolean>((resolve) => {
        const finish = (woken: boolean) => {
          clearTimeout(timer);
          for (const k of lists) listWaiters.get(k)?.delete(wake);
          resolve(woken);
        };
        const wake = () => finish(true);
        const timer = setTimeout(() => finish(false), Math.max(0, timeoutSeconds) * 1000);
        for (const k of lists) {
          let ws = listWaiters.get(k);
          if (!ws) listWaiters.set(k, (ws = new Set()));
          ws.add(wake);
        }
      });
    },

    async queueExtend(name: string, taskId: string, lease: string, visibilitySeconds: number): Promise<string | null> {
      const cur = raw.zscore(keys.queueProcessing(name), taskId);
      if (cur === null || cur !== Number(lease)) return null;
      const deadline = Math.max(cur, leaseNowSeconds() + Math.max(1, visibilitySeconds));
      raw.zadd(keys.queueProcessing(name), deadline, taskId);
      return leaseText(deadline);
    },

    async queueAck(name: string, taskId: string, opts: LeaseOption = {}): Promise<boolean> {
      if (!holds(ctx, name, taskId, opts.lease)) return false;
      return endReservation(ctx, name, taskId);
    },

    async queueNack(name: string, taskId: string, body: BytesLike, opts: { delaySeconds: number } & LeaseOption): Promise<boolean> {
      if (!holds(ctx, name, taskId, opts.lease)) return false;
      endReservation(ctx, name, taskId);
      if (opts.delaySeconds > 0) raw.zadd(keys.queueScheduled(name), nowSeconds() + opts.delaySeconds, body);
      else raw.rpush(keys.queue(name), body);
      return true;
    },

    async queueFail(name: string, taskId: string, body: BytesLike, opts: LeaseOption = {}): Promise<boolean> {
      if (!holds(ctx, name, taskId, opts.lease)) return false;
      const ended = endReservation(ctx, name, taskId);
      raw.rpush(keys.queueDead(name), body);
      return ended;
    },

    async queueSweepExpired(name: string, now?: number): Promise<SweepResult> {
      const t = now ?? nowSeconds();
      const proc = keys.queueProcessing(name);
      const bodies = keys.queueProcessingBody(name);
      const result: SweepResult = { requeued: 0, orphaned: [] };
      for (const { member } of raw.zrangeByScore(proc, 0, t)) {
        const id = member.toString("utf8");
        const body = raw.hget(bodies, id);
        raw.zrem(proc, member);
        if (body === null) {
          result.orphaned.push(id);
          continue;
        }
        raw.hdel(bodies, id);
        raw.rpush(keys.queue(name), body);
        result.requeued++;
      }
      return result;
    },

    async queuesExist(names: string[]): Promise<boolean[]> {
      return names.map((n) =>
        [keys.queue(n), keys.queueHigh(n), keys.queueLow(n), keys.queueProcessing(n), keys.queueProcessingBody(n), keys.queueScheduled(n), keys.queueDead(n)].some((k) =>
          raw.exists(k),
        ),
      );
    },

    async queueNames(): Promise<string[]> {
      const names = new Set<string>();
      for (const k of raw.keysWithPrefix("fleet:queue:")) {
        const n = queueNameOfKey(k);
        if (n !== null) names.add(n);
      }
      return [...names].sort(cmp);
    },

    async queueDepths(names: string[], now?: number): Promise<QueueDepths[]> {
      const t = now ?? nowSeconds();
      return names.map((n) => queueDepthsOf(ctx, n, t));
    },

    async queueDetail(name: string, limit: number, now?: number): Promise<QueueDetail> {
      const t = now ?? nowSeconds();
      const pending: QueueDetail["pending"] = [];
      const priorities: Priority[] = ["high", "normal", "low"];
      for (const priority of priorities) {
        const left = limit - pending.length;
        if (left <= 0) break;
        // a list of another type is empty here; depths() lists it as corrupt
        for (const body of wrongTypeAs([], () => raw.lrange(queueKeyForPriority(name, priority), 0, left - 1))) pending.push({ priority, body });
      }
      const n = Math.max(0, limit);
      const depths = queueDepthsOf(ctx, name, t);
      let bodiesWrongType = false;
      const processing = wrongTypeAs([], () => raw.zrange(keys.queueProcessing(name)))
        .slice(0, n)
        .map(({ member, score }) => {
          const id = member.toString("utf8");
          const body = wrongTypeAs(undefined, () => raw.hget(keys.queueProcessingBody(name), id));
          if (body === undefined) bodiesWrongType = true;
          return { id, deadline: score, body: body ?? null };
        });
      if (bodiesWrongType) depths.corrupt = [...(depths.corrupt ?? []), "processing:body"];
      const scheduled = wrongTypeAs([], () => raw.zrange(keys.queueScheduled(name)))
        .slice(0, n)
        .map(({ member, score }) => ({ readyAt: score, body: member }));
      return { depths, pending, processing, scheduled };
    },
  };
  return api;
}
