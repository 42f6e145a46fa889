// The Backend contract on the event bus: publish and one pattern subscription. A part of
// describeBackendContract (./contract.ts), run on both implementations by contract-
// memory.test.ts and contract-redis.test.ts.
import { beforeEach, describe, expect, it } from "vitest";
import type { Backend, BusMessage } from "../src/types";
import { b, NOT_UTF8, waitFor, type ContractState } from "./contract-support";

export function eventsContract(state: ContractState): void {
  describe("events", () => {
    let be: Backend;
    beforeEach(() => {
      ({ be } = state);
    });

    it("delivers published messages and stream-push scores to a subscriber until it closes", async () => {
      const topic = `t-${Math.random().toString(36).slice(2)}`;
      const got: BusMessage[] = [];
      const sub = await be.subscribeEvents((m) => {
        if (m.topic.startsWith(topic)) got.push(m);
      });
      await be.eventPublish(topic, NOT_UTF8);
      await be.eventPublish(`${topic}:x.y`, '{"a": 1}');
      await be.streamPush(topic, "env", { score: 1700000000, maxLen: 0, ttlSeconds: 0 });
      await be.streamPush(topic, "env2", { score: 1700000000.25, maxLen: 0, ttlSeconds: 0 });
      await waitFor(() => (got.length >= 4 ? true : undefined));
      expect(got).toEqual([
        { topic, payload: NOT_UTF8 },
        { topic: `${topic}:x.y`, payload: b('{"a": 1}') },
        { topic: `${topic}.emit`, payload: b("1700000000.0") },
        { topic: `${topic}.emit`, payload: b("1700000000.25") },
      ]);
      await sub.close();
      // nothing after close: a subscription still open sees "after close" and then a marker
      // published after it; the closed one, had it still listened, would have had "after close" by then
      const later: string[] = [];
      const witness = await be.subscribeEvents((m) => m.topic === topic && later.push(String(m.payload)));
      try {
        await be.eventPublish(topic, "after close");
        await be.eventPublish(topic, "marker");
        await waitFor(() => (later.includes("marker") ? true : undefined));
        expect(later).toEqual(["after close", "marker"]);
        expect(got.length).toBe(4);
      } finally {
        await witness.close();
      }
    });

    it("fans out to every subscription", async () => {
      const topic = `t-${Math.random().toString(36).slice(2)}`;
      const a: string[] = [];
      const c: string[] = [];
      const s1 = await be.subscribeEvents((m) => m.topic === topic && a.push(String(m.payload)));
      const s2 = await be.subscribeEvents((m) => m.topic === topic && c.push(String(m.payload)));
      await be.eventPublish(topic, "hello");
      await waitFor(() => (a.length && c.length ? true : undefined));
      expect([a, c]).toEqual([["hello"], ["hello"]]);
      await s1.close();
      await s2.close();
    });
  });
}
