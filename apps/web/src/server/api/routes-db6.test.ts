// Route tests, first half: Redis database 6 belongs to this file alone.
import { automationsSuite } from "./test/automations-suite";
import { configSuite } from "./test/config-suite";
import { describeRoutes } from "./test/harness";
import { perfSuite } from "./test/perf-suite";
import { scaleSuite } from "./test/scale-suite";
import { workersSuite } from "./test/workers-suite";

describeRoutes(6, [workersSuite, configSuite, automationsSuite, perfSuite, scaleSuite]);
