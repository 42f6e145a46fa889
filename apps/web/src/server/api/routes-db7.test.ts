// Route tests, second half: Redis database 7 belongs to this file alone.
import { errorGroupsSuite } from "./test/error-groups-suite";
import { backendDownSuite, failureSuite } from "./test/errors-suite";
import { describeRoutes } from "./test/harness";
import { namesSuite } from "./test/names-suite";
import { queuesSuite } from "./test/queues-suite";
import { kvSuite, locksCountersSuite, poolsSuite, streamsSuite } from "./test/state-suite";

describeRoutes(7, [queuesSuite, poolsSuite, streamsSuite, locksCountersSuite, kvSuite, failureSuite, namesSuite, errorGroupsSuite]);
backendDownSuite();
