// The watch suite against a redis-server of its own (its keys are fixed fleet:console:* names,
// so it cannot share a database with the other suites), flushed before every test.
import { Redis } from "ioredis";
import { afterAll, beforeAll } from "vitest";

import { createRedisBackend } from "../src/redis";
import type { RawPlanter, RawType } from "./contract";
import { describeWatchContract } from "./contract-watch";
import { startPrivateRedis, type PrivateRedis } from "./support/private-redis";

let server: PrivateRedis;
beforeAll(async () => {
  server = await startPrivateRedis();
});
afterAll(async () => {
  await server?.stop();
});

describeWatchContract("redis", async () => {
  const r = new Redis(server.url(), { maxRetriesPerRequest: 1 });
  await r.flushdb();
  const backend = createRedisBackend(server.url());
  const plantRaw = {
    rpush: async (key: string, ...values: Array<string | Buffer>) => void (await r.rpush(key, ...values)),
    type: async (key: string) => (await r.type(key)) as RawType,
    pttl: async (key: string) => r.pttl(key),
    keys: async () => {
      const found: string[] = [];
      let cursor = "0";
      do {
        const [next, batch] = await r.scan(cursor, "COUNT", 1000);
        cursor = next;
        found.push(...batch);
      } while (cursor !== "0");
      return [...new Set(found)].sort();
    },
  } as unknown as RawPlanter;
  return {
    backend,
    plantRaw,
    cleanup: async () => {
      await backend.close();
      r.disconnect();
    },
  };
});
