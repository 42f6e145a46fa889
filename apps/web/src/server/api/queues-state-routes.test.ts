// The routes of queues (search and bulk jobs too), pools, streams, locks, counters and kv, failures, names and error groups, against memory and Redis (this file's own database).
import { testRedisDb } from "@fleet/backend/testing/redis-dbs";
import { errorGroupsSuite } from "./test/error-groups-suite";
import { backendDownSuite, failureSuite } from "./test/errors-suite";
import { describeRoutes } from "./test/harness";
import { namesSuite } from "./test/names-suite";
import { poolPagingSuite } from "./test/pool-paging-suite";
import { queuesSuite } from "./test/queues-suite";
import { searchSuite } from "./test/search-suite";
import { kvSuite, locksCountersSuite, poolsSuite, streamsSuite } from "./test/state-suite";

describeRoutes(testRedisDb("apps/web/src/server/api/queues-state-routes.test.ts"), [
  queuesSuite,
  searchSuite,
  poolsSuite,
  poolPagingSuite,
  streamsSuite,
  locksCountersSuite,
  kvSuite,
  failureSuite,
  namesSuite,
  errorGroupsSuite,
]);
backendDownSuite();
