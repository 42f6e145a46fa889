import { describe, expect, it } from "vitest";

import { parseServerEnv } from "./env";

describe("parseServerEnv", () => {
  it("has defaults for everything", () => {
    expect(parseServerEnv({})).toEqual({
      FLEET_BACKEND_URL: "memory://demo",
      FLEET_OFFLINE_AFTER_SECONDS: 60,
      FLEET_EVENTS_INTERVAL_MS: 1000,
      FLEET_EVENTS_REPLAY_SECONDS: 60,
      FLEET_WATCH: true,
      FLEET_WATCH_HOLD_SECONDS: 30,
      FLEET_WORKER_CACHE_MB: 64,
    });
  });

  it("treats an empty value as unset", () => {
    expect(parseServerEnv({ FLEET_BACKEND_URL: "", FLEET_OFFLINE_AFTER_SECONDS: "" }).FLEET_BACKEND_URL).toBe("memory://demo");
  });

  it("reads numbers from strings", () => {
    const env = parseServerEnv({ FLEET_OFFLINE_AFTER_SECONDS: "90", FLEET_EVENTS_INTERVAL_MS: "250", FLEET_BACKEND_URL: "redis://h:6379/2" });
    expect(env).toMatchObject({ FLEET_BACKEND_URL: "redis://h:6379/2", FLEET_OFFLINE_AFTER_SECONDS: 90, FLEET_EVENTS_INTERVAL_MS: 250 });
  });

  it("names the variable that is wrong", () => {
    expect(() => parseServerEnv({ FLEET_OFFLINE_AFTER_SECONDS: "soon" })).toThrow(/FLEET_OFFLINE_AFTER_SECONDS/);
    expect(() => parseServerEnv({ FLEET_EVENTS_INTERVAL_MS: "-5" })).toThrow(/FLEET_EVENTS_INTERVAL_MS/);
    expect(() => parseServerEnv({ FLEET_BACKEND_URL: "postgres://x" })).toThrow(/FLEET_BACKEND_URL/);
    expect(() => parseServerEnv({ FLEET_WORKER_CACHE_MB: "-1" })).toThrow(/FLEET_WORKER_CACHE_MB/);
    expect(parseServerEnv({ FLEET_WORKER_CACHE_MB: "0" }).FLEET_WORKER_CACHE_MB).toBe(0);
  });

  it("never echoes the backend URL, which may hold a password", () => {
    let message = "";
    try {
      parseServerEnv({ FLEET_BACKEND_URL: "mysql://user:hunter2@db" });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/FLEET_BACKEND_URL/);
    expect(message).not.toContain("hunter2");
  });
});
