// The routes of workers, their config and automations, against memory and Redis (this file's own database).
import { testRedisDb } from "@fleet/backend/testing/redis-dbs";
import { automationsSuite } from "./test/automations-suite";
import { configSuite } from "./test/config-suite";
import { describeRoutes } from "./test/harness";
import { perfSuite } from "./test/perf-suite";
import { scaleSuite } from "./test/scale-suite";
import { workersSuite } from "./test/workers-suite";

describeRoutes(testRedisDb("apps/web/src/server/api/workers-routes.test.ts"), [workersSuite, configSuite, automationsSuite, perfSuite, scaleSuite]);
