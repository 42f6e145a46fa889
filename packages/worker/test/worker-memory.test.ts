import { createMemoryBackend } from "@fleet/backend/memory";
import { describeWorkerSuite } from "./worker-suite";

describeWorkerSuite("the memory backend", () => createMemoryBackend("memory://worker-tests"));
