// Route tests of the raw-value extensions (preview_bytes, GET /pools/{name}/items/{id}):
// Its Redis database is its own (@fleet/backend/testing/redis-dbs).
import { testRedisDb } from "@fleet/backend/testing/redis-dbs";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { bearer, call, clearAuth, configureAuth } from "@/server/auth/test/auth-env";

import { describeRoutes, redisTestUrl } from "./test/harness";
import { RAW_GETS, rawValuesSuite, seedRawValues } from "./test/raw-values-suite";

const DB = testRedisDb("apps/web/src/server/api/raw-values.test.ts");

describeRoutes(DB, [rawValuesSuite]);

describe("with authentication on", () => {
  let admin: Redis;
  beforeAll(async () => {
    admin = new Redis(redisTestUrl(DB), { lazyConnect: true, maxRetriesPerRequest: 1 });
    await admin.connect();
    await admin.flushdb();
    const backend = await configureAuth(redisTestUrl(DB));
    await seedRawValues(backend, {
      zadd: async (k, s, m) => void (await admin.zadd(k, String(s), m)),
      hset: async (k, f, v) => void (await admin.hset(k, f, v)),
    });
  });
  afterAll(async () => {
    await clearAuth();
    await admin.flushdb();
    await admin.quit();
  });

  it("a viewer reads every raw value in full; a stranger gets 401", async () => {
    for (const g of RAW_GETS) {
      const path = `${g.path}?preview_bytes=65536`;
      const res = await call(g.handler, "GET", path, { headers: bearer("viewer") });
      expect(res.status, g.what).toBe(200);
      for (const [v, stored] of g.pick(res.json)) expect(v).toMatchObject({ text: stored, truncated: false });
      const anon = await call(g.handler, "GET", path);
      expect(anon.status, g.what).toBe(401);
      expect(anon.json.error.code).toBe("unauthenticated");
    }
  });
});
