import { createRedisBackend } from "@fleet/backend/redis";
import { redisTestUrl } from "./helpers";
import { describeWorkerSuite } from "./worker-suite";

// DB 4: this file's keys; every test uses fresh automation names, so stale keys from an earlier run never collide
describeWorkerSuite("a real Redis", () => createRedisBackend(redisTestUrl(4)));
