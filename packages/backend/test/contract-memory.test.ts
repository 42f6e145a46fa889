import { createMemoryBackend } from "../src/memory";
import { describeLeaseContract } from "./contract-lease";
import { describeBoundedContract } from "./contract-bounded";
import { describeBackendContract, type BackendFixture, type RawPlanter } from "./contract";
import { describeScaleContract } from "./contract-scale";
import { describeSearchContract } from "./contract-search";
import { describeWorkerBulkContract } from "./contract-worker-bulk";

async function fixture(): Promise<BackendFixture> {
  const backend = createMemoryBackend();
  const r = backend.raw;
  const plantRaw: RawPlanter = {
    set: async (key, value, opts) => void r.set(key, value, { ttlMs: opts?.ttlSeconds ? opts.ttlSeconds * 1000 : null }),
    hset: async (key, field, value) => void r.hset(key, { [field]: value }),
    zadd: async (key, score, member) => void r.zadd(key, score, member),
    rpush: async (key, ...values) => void r.rpush(key, ...values),
    sadd: async (key, ...members) => void r.sadd(key, ...members),
    del: async (key) => void r.del(key),
    type: async (key) => r.type(key),
    get: async (key) => r.get(key),
    hgetall: async (key) => Object.fromEntries(r.hgetall(key)),
    zrange: async (key) => r.zrange(key),
    lrange: async (key) => r.lrange(key),
    smembers: async (key) => r.smembers(key),
    pttl: async (key) => r.pttl(key),
    keys: async () => r.keys(),
  };
  return { backend, plantRaw, cleanup: () => backend.close() };
}

describeBackendContract("memory", fixture);
describeScaleContract("memory", fixture);
describeLeaseContract("memory", fixture);
describeSearchContract("memory", fixture);
describeWorkerBulkContract("memory", fixture);
describeBoundedContract("memory", fixture);
