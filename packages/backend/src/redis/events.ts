// The event bus (event:<topic>) over Redis: the EventsBackend part of the contract.
import { toBuffer } from "../codec";
import { keys } from "../keys";
import type { EventsBackend, BusMessage, BytesLike, Subscription } from "../types";
import { RedisConnection } from "./connection";
import type { RedisContext } from "./context";

export function redisEvents(ctx: RedisContext): EventsBackend {
  return {
    async eventPublish(topic: string, body: BytesLike): Promise<void> {
      await ctx.run((r) => r.publish(keys.event(topic), toBuffer(body)));
    },

    async subscribeEvents(onMessage: (msg: BusMessage) => void): Promise<Subscription> {
      // A dedicated connection: a subscribed connection can do nothing else.
      const conn = new RedisConnection(ctx.rawUrl, ctx.opts, { enableOfflineQueue: true, autoResubscribe: true });
      conn.client.on("pmessageBuffer", (_pattern: Buffer, channel: Buffer, message: Buffer) => {
        const ch = channel.toString("utf8");
        onMessage({ topic: ch.startsWith("event:") ? ch.slice("event:".length) : ch, payload: message });
      });
      try {
        await conn.run((r) => r.psubscribe("event:*"));
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
      return sub;
    },
  };
}
