// `pnpm --filter @fleet/worker bench:wake` (BENCH_REDIS_URL, default redis://127.0.0.1:6390/9):
// how fast an idle worker picks up a pushed task, and what its idle slots cost Redis.
// Prints each figure beside its target (issue 13.6) and exits 1 when one misses.
import { createRedisBackend } from "@fleet/backend/redis";
import { z } from "zod";
import { defineAutomation, encodeTaskBody, runtimeConfigShape, startWorker } from "../src/index";

const url = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6390/9";
const ROUNDS = 40;
const SLOTS = 4;

async function main(): Promise<void> {
  const backend = createRedisBackend(url);
  const type = `bench-wake-${process.pid}`;
  const started = new Map<string, number>();
  const automation = defineAutomation({
    type,
    kind: "batch",
    config: z.object(runtimeConfigShape),
    taskPayload: z.object({ n: z.number() }),
    run: async (_ctx, task) => void started.set(task.id, performance.now()),
  });
  await backend.workerSetConfig(type, "bench", { slots: SLOTS });
  const w = await startWorker({ backend, automation, workerId: "bench", heartbeatMs: 60_000, configPollMs: 60_000 });
  await w.waitFor((s) => s.slotsRunning === SLOTS, 5000);

  // idle cost: reserve calls (EVALSHA in INFO commandstats; nothing else runs a script here) over 5 s.
  // INFO through the backend's own client: the worker package does not depend on ioredis itself.
  const client = (backend as unknown as { conn: { client: { info(section: string): Promise<string> } } }).conn.client;
  const info = async () => Number(/cmdstat_evalsha:calls=(\d+)/.exec(await client.info("commandstats"))?.[1] ?? 0);
  await new Promise((r) => setTimeout(r, 1500));
  const c0 = await info();
  await new Promise((r) => setTimeout(r, 5000));
  const idleCalls = (await info()) - c0;
  const perSlotPerSecond = idleCalls / SLOTS / 5;

  const lat: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    await new Promise((r) => setTimeout(r, 150 + Math.random() * 200)); // idle again
    const { id, body } = encodeTaskBody({ n: i });
    const t0 = performance.now();
    await backend.queuePush(type, body);
    await w.waitFor(() => started.has(id), 5000);
    lat.push(started.get(id)! - t0);
  }
  lat.sort((a, b) => a - b);
  const p = (q: number) => lat[Math.min(lat.length - 1, Math.floor(q * lat.length))]!;
  await w.stop();
  await backend.close();

  const rows: Array<[string, number, string, boolean]> = [
    ["pickup after a push, p50 (ms)", p(0.5), "< 50", p(0.5) < 50],
    ["pickup after a push, p95 (ms)", p(0.95), "< 50", p(0.95) < 50],
    ["idle reserve calls per slot per second", perSlotPerSecond, "<= 1.2", perSlotPerSecond <= 1.2],
  ];
  for (const [name, v, target, ok] of rows) console.log(`${name.padEnd(42)} ${v.toFixed(2).padStart(8)}   target ${target}   ${ok ? "ok" : "MISSED"}`);
  process.exit(rows.every((r) => r[3]) ? 0 : 1);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
