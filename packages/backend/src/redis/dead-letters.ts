// A queue's dead letters over Redis (the DeadLettersBackend part of the contract): reads,
// and the by-ref and whole-list actions, chunked so that no call stalls Redis (README.md,
// "Dead-letter actions never stall Redis").
import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import { sha1Hex, toBuffer } from "../codec";
import { keys } from "../keys";
import { withAttemptsReset } from "../task-body";
import type { DeadLettersBackend, BytesLike, DeadLetterMatch, DeadLetterSelector, RequeueOptions } from "../types";
import { dlqByRef } from "../shared";
import { callScript } from "./connection";
import { EMPTY, type RedisContext } from "./context";
import { asBufferArray, asNumber } from "./replies";

/**
 * Dead letters per LRANGE while locating refs, and per atomic chunk of "requeue all"
 * (a script of 1,000 LMOVEs runs for about a millisecond).
 */
export const DLQ_CHUNK = 1000;
/** "Requeue all" with attempts back: bodies per chunk, and about this many bytes of arguments. */
const DLQ_RESET_CHUNK = 500;
const DLQ_RESET_CHUNK_BYTES = 1 << 20;

/** How many of the ascending `sorted` are below `q`. */
function countBelow(sorted: number[], q: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < q) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Where each body is in the dead-letter list from index `from` on, ascending: the list read
 * in chunks of DLQ_CHUNK (the next asked for while one is compared here), bytes compared
 * in Node (by length first), never in Redis.
 */
async function dlqPlaces(r: Redis, dead: string, bodies: Buffer[], from: number): Promise<number[][]> {
  const places = bodies.map(() => [] as number[]);
  const byLength = new Map<number, number[]>();
  bodies.forEach((b, i) => {
    const at = byLength.get(b.length);
    if (at) at.push(i);
    else byLength.set(b.length, [i]);
  });
  const read = (start: number) => r.lrangeBuffer(dead, start, start + DLQ_CHUNK - 1);
  let start = Math.max(0, from);
  let next = read(start);
  for (;;) {
    const chunk = await next;
    if (chunk.length === DLQ_CHUNK) next = read(start + DLQ_CHUNK);
    for (let k = 0; k < chunk.length; k++) {
      const candidates = byLength.get(chunk[k]!.length);
      if (!candidates) continue;
      for (const i of candidates) if (chunk[k]!.equals(bodies[i]!)) places[i]!.push(start + k);
    }
    if (chunk.length < DLQ_CHUNK) break;
    start += DLQ_CHUNK;
  }
  return places;
}

/** "Requeue all" in atomic chunks of DLQ_CHUNK: what the list held when the call began, never what arrives meanwhile. */
async function dlqRequeueAll(ctx: RedisContext, name: string, opts: RequeueOptions): Promise<number> {
  const dead = keys.queueDead(name);
  if (!opts.keepAttempts) return dlqRequeueAllReset(ctx, name);
  return ctx.run(async (r) => {
    let left = await r.llen(dead);
    let moved = 0;
    while (left > 0) {
      const res = (await callScript(r, "dlqMove", [dead, keys.queue(name)], [String(Math.min(DLQ_CHUNK, left))])) as unknown[];
      const n = asNumber(res[0]);
      moved += n;
      left -= n;
      if (n === 0 || asNumber(res[1]) === 0) break;
    }
    return moved;
  });
}

/**
 * "Requeue all" giving attempts back: read a chunk of the head (at most DLQ_RESET_CHUNK
 * bodies or about 1 MiB), compute the replacements here, move them while the head is
 * still what was read (dlq-move-reset-2); what the list held when the call began.
 */
async function dlqRequeueAllReset(ctx: RedisContext, name: string): Promise<number> {
  const dead = keys.queueDead(name);
  return ctx.run(async (r) => {
    let left = await r.llen(dead);
    let moved = 0;
    let stalls = 0;
    while (left > 0) {
      const head = await r.lrangeBuffer(dead, 0, Math.min(DLQ_RESET_CHUNK, left) - 1);
      if (head.length === 0) break;
      const args: Buffer[] = [];
      let bytes = 0;
      for (const body of head) {
        if (args.length > 0 && bytes + body.length > DLQ_RESET_CHUNK_BYTES) break;
        args.push(body, withAttemptsReset(body));
        bytes += body.length * 2;
      }
      const res = (await callScript(r, "dlqMoveReset", [dead, keys.queue(name)], args)) as unknown[];
      const n = asNumber(res[0]);
      moved += n;
      left -= n;
      if (asNumber(res[1]) === 0) break;
      // a head changed meanwhile: read again; twice in a row without progress, give up
      stalls = n === 0 ? stalls + 1 : 0;
      if (stalls >= 2) break;
    }
    return moved;
  });
}

export function redisDeadLetters(ctx: RedisContext): DeadLettersBackend {
  const api: DeadLettersBackend = {
    async queueDead(name: string, body: BytesLike): Promise<void> {
      await ctx.run((r) => r.rpush(keys.queueDead(name), toBuffer(body)));
    },

    async dlqPeek(name: string, n: number): Promise<Buffer[]> {
      if (n <= 0) return [];
      return ctx.run((r) => r.lrangeBuffer(keys.queueDead(name), 0, n - 1));
    },

    async dlqPop(name: string, n: number): Promise<Buffer[]> {
      if (n <= 0) return [];
      return ctx.run(async (r) => (await r.lpopBuffer(keys.queueDead(name), n)) ?? []);
    },

    async dlqLength(name: string): Promise<number> {
      return ctx.run((r) => r.llen(keys.queueDead(name)));
    },

    async dlqClear(name: string): Promise<number> {
      return ctx.run(async (r) => {
        // UNLINK: a list of a million dead letters is freed off Redis' main thread.
        const [len] = await ctx.conn.execValues(r.multi().llen(keys.queueDead(name)).unlink(keys.queueDead(name)));
        return asNumber(len);
      });
    },

    async dlqRange(name: string, offset: number, limit: number): Promise<{ total: number; items: Buffer[] }> {
      const k = keys.queueDead(name);
      return ctx.run(async (r) => {
        if (limit <= 0) return { total: await r.llen(k), items: [] };
        const [total, items] = await ctx.conn.execValues(
          r
            .pipeline()
            .llen(k)
            .lrangeBuffer(k, offset, offset + limit - 1),
        );
        return { total: asNumber(total), items: asBufferArray(items) };
      });
    },

    async dlqLocate(name: string, refs: string[]): Promise<{ found: DeadLetterMatch[]; missing: string[] }> {
      const wanted = new Set(refs.map((x) => x.toLowerCase()));
      const found = new Map<string, DeadLetterMatch>();
      if (wanted.size === 0) return { found: [], missing: [] };
      const k = keys.queueDead(name);
      await ctx.run(async (r) => {
        // Chunk by chunk, the next one already asked for while this one is hashed here; no
        // chunk costs Redis more than a fraction of a millisecond. Stops once all are found.
        const read = (start: number) => r.lrangeBuffer(k, start, start + DLQ_CHUNK - 1);
        let start = 0;
        let next = read(0);
        for (;;) {
          const chunk = await next;
          if (chunk.length === DLQ_CHUNK) next = read(start + DLQ_CHUNK);
          for (let i = 0; i < chunk.length; i++) {
            const ref = sha1Hex(chunk[i]!);
            if (wanted.has(ref) && !found.has(ref)) found.set(ref, { ref, body: chunk[i]!, index: start + i });
          }
          if (chunk.length < DLQ_CHUNK || found.size === wanted.size) {
            if (chunk.length === DLQ_CHUNK) await next.catch(() => undefined);
            break;
          }
          start += DLQ_CHUNK;
        }
      });
      return { found: [...found.values()], missing: [...wanted].filter((x) => !found.has(x)) };
    },

    async dlqTake(name: string, found: DeadLetterMatch[], action: "requeue" | "delete", opts: RequeueOptions = {}): Promise<{ count: number; missing: string[] }> {
      const dead = keys.queueDead(name);
      const ordered = [...found].sort((a, b) => a.index - b.index);
      let count = 0;
      const missing: string[] = [];
      if (ordered.length === 0) return { count, missing };
      // A token no stored body is: dlq-take-at-2.lua overwrites each copy with it, then removes
      // them by one LREM from the nearer end (never a pass over the whole list).
      const tomb = Buffer.from(`\u0000fleet-console:dead-letter-tombstone:${randomBytes(16).toString("hex")}`);
      await ctx.run(async (r) => {
        // Every copy's place, read in chunks from the first one found (no copy is before it,
        // unless the list moved meanwhile: then the body is looked for again from the head).
        let places = await dlqPlaces(
          r,
          dead,
          ordered.map((m) => m.body),
          ordered[0]!.index,
        );
        for (let i = 0; i < ordered.length; i++) {
          const m = ordered[i]!;
          const pushed = action === "requeue" ? withAttemptsReset(m.body, opts) : EMPTY;
          let taken: number | null = null;
          for (let attempt = 0; attempt < 3 && taken === null; attempt++) {
            if (places[i]!.length === 0 && attempt > 0) break;
            if (places[i]!.length === 0 || attempt > 0) {
              // not where it was found: the list moved; read it again from the head
              const again = await dlqPlaces(
                r,
                dead,
                ordered.slice(i).map((x) => x.body),
                0,
              );
              places = [...places.slice(0, i), ...again];
              if (places[i]!.length === 0) break;
            }
            const res = asNumber(await callScript(r, "dlqTakeAt", [dead, keys.queue(name)], [m.body, action, pushed, tomb, ...places[i]!.map(String)]));
            if (res >= 0) taken = res;
          }
          if (taken === null && places[i]!.length > 0) {
            // moving under our feet three times: take it by its bytes in one pass of the list
            // (the way every take went before; correct, only not bounded)
            taken =
              action === "delete"
                ? asNumber(await r.lrem(dead, 0, m.body))
                : asNumber(await callScript(r, "dlqRequeueBody", [dead, keys.queue(name)], pushed.equals(m.body) ? [m.body] : [m.body, pushed]));
            if (i + 1 < ordered.length)
              places = [
                ...places.slice(0, i + 1),
                ...(await dlqPlaces(
                  r,
                  dead,
                  ordered.slice(i + 1).map((x) => x.body),
                  0,
                )),
              ];
          } else if (taken !== null && taken > 0) {
            // the places of the bodies after this one, in the list without its copies
            const gone = places[i]!;
            for (let j = i + 1; j < ordered.length; j++) places[j] = places[j]!.map((q) => q - countBelow(gone, q));
          }
          if (taken !== null && taken > 0) count += taken;
          else missing.push(m.ref);
        }
      });
      return { count, missing };
    },

    async dlqRequeue(name: string, which: DeadLetterSelector, opts: RequeueOptions = {}): Promise<{ requeued: number; missing: string[] }> {
      if ("all" in which) return { requeued: await dlqRequeueAll(ctx, name, opts), missing: [] };
      const { count, missing } = await dlqByRef(api, name, which.refs, "requeue", opts);
      return { requeued: count, missing };
    },

    async dlqDelete(name: string, which: DeadLetterSelector): Promise<{ deleted: number; missing: string[] }> {
      if ("all" in which) return { deleted: await api.dlqClear(name), missing: [] };
      const { count, missing } = await dlqByRef(api, name, which.refs, "delete");
      return { deleted: count, missing };
    },
  };
  return api;
}
