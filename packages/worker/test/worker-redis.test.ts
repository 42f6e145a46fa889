import { createRedisBackend } from "@fleet/backend/redis";
import { testRedisUrl } from "@fleet/backend/testing/redis-dbs";
import { describeWorkerSuite } from "./worker-suite";

// its own database; every test uses fresh automation names, so stale keys from an earlier run never collide
describeWorkerSuite("a real Redis", () => createRedisBackend(testRedisUrl("packages/worker/test/worker-redis.test.ts")));
