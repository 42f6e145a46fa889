import { describe, expect, it } from "vitest";

import { hardwareLabel, humanizeKey, statLabel } from "./labels";

describe("labels", () => {
  it("names the runtime's stats keys plainly, with an explanation", () => {
    expect(statLabel("latency_p95_ms")).toEqual({ label: "Task time, slowest 5% (ms)", hint: "One run in twenty takes longer than this (95th percentile)." });
    expect(statLabel("slots_target").label).toBe("Slots wanted");
    expect(hardwareLabel("cpus").label).toBe("CPUs");
  });
  it("makes any other key readable, its unit kept", () => {
    expect(humanizeKey("pages_fetched")).toBe("Pages fetched");
    expect(humanizeKey("queue_wait_ms")).toBe("Queue wait (ms)");
    expect(humanizeKey("errorRate")).toBe("Error rate");
    expect(humanizeKey("__")).toBe("__");
    expect(statLabel("constructor")).toEqual({ label: "Constructor" });
  });
});
