// The event bus in memory (the EventsBackend part of the contract): one process, delivered
// after the publish returns, as Redis delivers.

import { toBuffer } from "../codec";
import type { EventsBackend, BusMessage, BytesLike, Subscription } from "../types";
import type { MemoryContext } from "./context";

export function memoryEvents(ctx: MemoryContext): EventsBackend {
  return {
    async eventPublish(topic: string, body: BytesLike): Promise<void> {
      ctx.publish(topic, Buffer.from(toBuffer(body)));
    },

    async subscribeEvents(onMessage: (msg: BusMessage) => void): Promise<Subscription> {
      const listener = (msg: BusMessage) => onMessage(msg);
      ctx.listeners.add(listener);
      return {
        close: async () => {
          ctx.listeners.delete(listener);
        },
      };
    },
  };
}
