// The Backend contract, as one vitest suite that every implementation must pass
// (`describeBackendContract("redis", factory)`, `describeBackendContract("memory", factory)`).
// Upstream operations follow the Python reference (../shared/spec/backend.py) byte for byte;
// the additions follow the JSDoc in src/types.ts and the fixes in ../shared/spec/README.md.
//
// The factory gives each test a fresh, empty backend plus a RawPlanter: raw access to the
// same key space, so a test can plant what a broken or foreign writer would leave behind and
// check the exact bytes an operation stored. One part per domain of the contract, as in
// src/redis and src/memory: ./contract-kv.ts, ./contract-pools.ts, ./contract-locks.ts,
// ./contract-counters.ts, ./contract-queues.ts (dead letters too), ./contract-streams.ts,
// ./contract-events.ts, ./contract-workers.ts, ./contract-catalog.ts, ./contract-agree.ts
// (where the implementations used to differ), and the console's own state:
// ./contract-audit.ts, ./contract-worker-errors.ts, ./contract-sessions.ts. The suites beside
// it (contract-scale, -lease, -search, -worker-bulk, -watch) are run by the same test files.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { agreeContract } from "./contract-agree";
import { auditContract } from "./contract-audit";
import { catalogContract } from "./contract-catalog";
import { countersContract } from "./contract-counters";
import { eventsContract } from "./contract-events";
import { kvContract } from "./contract-kv";
import { locksContract } from "./contract-locks";
import { poolsContract } from "./contract-pools";
import { queuesContract } from "./contract-queues";
import { sessionsContract } from "./contract-sessions";
import { streamsContract } from "./contract-streams";
import type { BackendFixture, ContractState } from "./contract-support";
import { workerErrorsContract } from "./contract-worker-errors";
import { workersContract } from "./contract-workers";

export type { BackendFixture, RawPlanter, RawType } from "./contract-support";
export { TASK_ID_CASES, type TaskIdCase } from "./task-ids";

export function describeBackendContract(name: string, factory: () => Promise<BackendFixture>): void {
  describe(`Backend contract: ${name}`, () => {
    const state = {} as ContractState;
    let cleanup: () => Promise<void>;

    beforeEach(async () => {
      ({ backend: state.be, plantRaw: state.raw, cleanup } = await factory());
    });
    afterEach(async () => {
      await cleanup();
    });

    describe("meta", () => {
      it("reports its kind and health", async () => {
        expect(["redis", "memory"]).toContain(state.be.kind);
        const h = await state.be.health();
        expect(h.latencyMs).toBeGreaterThanOrEqual(0);
        if (state.be.kind === "memory") {
          expect(h.version).toBe("memory");
          expect(h.aofEnabled).toBeNull();
        } else {
          expect(h.version).toMatch(/^\d+\.\d+/);
          expect(typeof h.aofEnabled).toBe("boolean");
        }
        expect(state.be.url).not.toMatch(/:[^:@/]+@/);
      });
    });

    kvContract(state);
    poolsContract(state);
    locksContract(state);
    countersContract(state);
    queuesContract(state);
    streamsContract(state);
    eventsContract(state);
    workersContract(state);
    catalogContract(state);
    agreeContract(state);
    auditContract(state);
    workerErrorsContract(state);
    sessionsContract(state);
  });
}
