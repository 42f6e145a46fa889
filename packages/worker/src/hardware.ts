import os from "node:os";
import { pyFloat, type JsonObject } from "@fleet/backend";

/** What this process can say about its host; `overrides` win (simulated hosts replace all of it). */
export function detectHardware(now: number, overrides?: JsonObject & { hostname?: string }): JsonObject {
  return {
    hostname: os.hostname(),
    cpus: os.availableParallelism?.() ?? os.cpus().length,
    memory: os.totalmem(),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    runtime: `node ${process.version}`,
    pid: process.pid,
    started_at: pyFloat(now),
    ...overrides,
  };
}

/** Process CPU use between calls, as a percentage of one core. */
export function cpuMeter(): () => number {
  let lastCpu = process.cpuUsage();
  let lastWall = process.hrtime.bigint();
  return () => {
    const cpu = process.cpuUsage();
    const wall = process.hrtime.bigint();
    const usedUs = cpu.user - lastCpu.user + (cpu.system - lastCpu.system);
    const wallUs = Number(wall - lastWall) / 1000;
    lastCpu = cpu;
    lastWall = wall;
    return wallUs > 0 ? Math.round((usedUs / wallUs) * 1000) / 10 : 0;
  };
}
