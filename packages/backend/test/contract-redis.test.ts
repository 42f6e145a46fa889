import { Redis } from "ioredis";
import { createRedisBackend } from "../src/redis";
import { describeLeaseContract } from "./contract-lease";
import { describeBoundedContract } from "./contract-bounded";
import { describeBackendContract, type BackendFixture, type RawPlanter, type RawType } from "./contract";
import { describeScaleContract } from "./contract-scale";
import { describeSearchContract } from "./contract-search";
import { describeWorkerBulkContract } from "./contract-worker-bulk";
import { testRedisUrl } from "./support/redis-dbs";

/** This suite's own database: it is flushed before every test. */
const url = testRedisUrl("packages/backend/test/contract-redis.test.ts");

async function fixture(): Promise<BackendFixture> {
  const r = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 1 });
  await r.flushdb();
  const backend = createRedisBackend(url);
  const plantRaw: RawPlanter = {
    set: async (key, value, opts) => {
      if (opts?.ttlSeconds) await r.set(key, value, "EX", opts.ttlSeconds);
      else await r.set(key, value);
    },
    hset: async (key, field, value) => void (await r.hset(key, field, value)),
    zadd: async (key, score, member) => void (await r.zadd(key, String(score), member)),
    rpush: async (key, ...values) => void (await r.rpush(key, ...values)),
    sadd: async (key, ...members) => void (await r.sadd(key, ...members)),
    del: async (key) => void (await r.del(key)),
    type: async (key) => (await r.type(key)) as RawType,
    get: async (key) => r.getBuffer(key),
    hgetall: async (key) => {
      const flat = await r.hgetallBuffer(key);
      return Object.fromEntries(Object.entries(flat));
    },
    zrange: async (key) => {
      const flat = (await r.zrangeBuffer(key, 0, "-1", "WITHSCORES")) as Buffer[];
      const out: Array<{ member: Buffer; score: number }> = [];
      for (let i = 0; i < flat.length; i += 2) out.push({ member: flat[i]!, score: Number(flat[i + 1]!.toString()) });
      return out;
    },
    lrange: async (key) => r.lrangeBuffer(key, 0, -1),
    smembers: async (key) => (await r.smembers(key)).sort(),
    pttl: async (key) => r.pttl(key),
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
  };
  return {
    backend,
    plantRaw,
    cleanup: async () => {
      await backend.close();
      r.disconnect();
    },
  };
}

describeBackendContract("redis", fixture);
describeScaleContract("redis", fixture);
describeLeaseContract("redis", fixture);
describeSearchContract("redis", fixture);
describeWorkerBulkContract("redis", fixture);
describeBoundedContract("redis", fixture);
