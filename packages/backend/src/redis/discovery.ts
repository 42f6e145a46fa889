// Name discovery primitives over Redis (the DiscoveryBackend part of the contract; the walk
// itself is ../discovery): one SCAN step, DBSIZE, keyspace notifications, key tracking.
import { DISCOVERY_SCAN_MATCH } from "../keys";
import type { DiscoveryBackend, KeyScanPage, KeyspaceEvents, Subscription } from "../types";
import { RedisConnection } from "./connection";
import type { RedisContext } from "./context";

export function redisDiscovery(ctx: RedisContext): DiscoveryBackend {
  return {
    async keyScan(cursor: string, count: number): Promise<KeyScanPage> {
      if (!/^\d+$/.test(cursor)) throw new RangeError(`not a SCAN cursor: '${cursor}'`);
      return ctx.run(async (r) => {
        const [next, batch] = await r.scan(cursor, "MATCH", DISCOVERY_SCAN_MATCH, "COUNT", Math.max(1, Math.floor(count)));
        return { cursor: next, keys: batch.filter((k) => k.startsWith("fleet:") || k.startsWith("stream:")) };
      });
    },

    async keyCount(): Promise<number> {
      return ctx.run((r) => r.dbsize());
    },

    async subscribeKeyspace(onEvent: (key: string, event: string) => void): Promise<KeyspaceEvents | null> {
      let flags: string;
      try {
        const reply = (await ctx.run((r) => r.config("GET", "notify-keyspace-events"))) as unknown[];
        flags = String(reply[1] ?? "");
      } catch {
        return null; // CONFIG refused (managed Redis, ACL): treated as off
      }
      if (!flags.includes("K")) return null;
      const db = ctx.conn.client.options.db ?? 0;
      const prefix = `__keyspace@${db}__:`;
      const conn = new RedisConnection(ctx.rawUrl, ctx.opts, { enableOfflineQueue: true, autoResubscribe: true });
      conn.client.on("pmessage", (_pattern: string, channel: string, message: string) => {
        if (channel.startsWith(prefix)) onEvent(channel.slice(prefix.length), message);
      });
      try {
        await conn.run((r) => r.psubscribe(`${prefix}fleet:*`, `${prefix}stream:*`));
      } catch (err) {
        await conn.close();
        throw err;
      }
      const sub: Subscription = {
        close: async () => {
          if (!ctx.subscriptions.delete(sub)) return;
          await conn.close();
        },
      };
      ctx.subscriptions.add(sub);
      return { subscription: sub, flags };
    },

    async trackKeys(prefixes: readonly string[], onKeys: (keys: string[] | null) => void, onLost: () => void): Promise<Subscription | null> {
      // RESP2 on purpose: with REDIRECT, Redis then delivers invalidations as pub/sub messages
      // on __redis__:invalidate (ioredis drops RESP3 "invalidate" pushes). No automatic
      // resubscribe: a new connection has no tracking, so a drop is reported instead.
      const conn = new RedisConnection(ctx.rawUrl, ctx.opts, { protocol: 2, enableOfflineQueue: true, autoResubscribe: false, retryStrategy: () => null });
      let open = true;
      const sub: Subscription = {
        close: async () => {
          open = false;
          if (!ctx.subscriptions.delete(sub)) return;
          await conn.close();
        },
      };
      try {
        await conn.run(async (r) => {
          const id = await r.client("ID");
          const args: string[] = ["TRACKING", "ON", "REDIRECT", String(id), "BCAST"];
          for (const p of prefixes) args.push("PREFIX", p);
          await r.call("CLIENT", ...args);
          r.on("messageBuffer", (channel: Buffer, message: unknown) => {
            if (channel.toString() !== "__redis__:invalidate") return;
            onKeys(Array.isArray(message) ? message.map((k) => String(k)) : null);
          });
          await r.subscribe("__redis__:invalidate");
        });
      } catch {
        await conn.close();
        return null; // Redis < 6, or CLIENT refused by an ACL: the walk alone, then
      }
      conn.client.once("close", () => {
        if (!open) return;
        open = false;
        ctx.subscriptions.delete(sub);
        conn.client.disconnect();
        onLost();
      });
      ctx.subscriptions.add(sub);
      return sub;
    },
  };
}
