// A Worker as the API answers it, for the browser data layer's unit tests.
import type { Worker } from "@fleet/schema";

export function testWorker(type: string, id: string, over: Partial<Worker> = {}): Worker {
  return {
    automation_type: type,
    worker_id: id,
    state: "RUNNING",
    status: "running",
    last_seen: 1000,
    last_error: null,
    config: {},
    config_gen: 1,
    hardware: { hostname: `${id}.host` },
    stats: { done: 1 },
    ...over,
  };
}
