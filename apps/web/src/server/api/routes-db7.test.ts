// Route tests, second half: Redis database 7 belongs to this file alone.
import { backendDownSuite, failureSuite } from "./test/errors-suite";
import { describeRoutes } from "./test/harness";
import { namesSuite } from "./test/names-suite";
import { queuesSuite } from "./test/queues-suite";
import { searchSuite } from "./test/search-suite";
import { kvSuite, locksCountersSuite, poolsSuite, streamsSuite } from "./test/state-suite";

describeRoutes(7, [queuesSuite, searchSuite, poolsSuite, streamsSuite, locksCountersSuite, kvSuite, failureSuite, namesSuite]);
backendDownSuite();
