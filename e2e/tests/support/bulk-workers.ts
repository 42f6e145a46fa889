// Thousands of workers written straight into Redis in a few pipelines: the Seeder's
// per-worker calls (several round trips each) would take most of a test's time at 10,000.
// The keys and encodings are the backend's own (keys, pyJsonBytes, encodeUnixFloat), so
// the console reads them exactly as it reads workers that registered themselves.
import { WORKER_ALL_INDEX, encodeUnixFloat, keys, pyJsonBytes, type Backend, type JsonObject } from "@fleet/backend";
import { RedisBackend } from "@fleet/backend/redis";

export interface BulkWorker {
  id: string;
  state: "IDLE" | "RUNNING" | "ERROR";
  /** Unix seconds. */
  lastSeen: number;
  lastError?: string | null;
  hardware: JsonObject;
}

/** Workers per pipeline (about five commands each). */
const CHUNK = 2_500;

export async function seedWorkersBulk(backend: Backend, type: string, workers: readonly BulkWorker[]): Promise<void> {
  if (!(backend instanceof RedisBackend)) throw new Error("seedWorkersBulk writes to Redis: the e2e backend is a RedisBackend");
  await backend.health(); // connects a lazily connected client
  const r = backend.client;
  for (let i = 0; i < workers.length; i += CHUNK) {
    const chunk = workers.slice(i, i + CHUNK);
    const p = r.pipeline();
    for (const w of chunk) {
      p.set(keys.worker(type, w.id, "hardware"), pyJsonBytes(w.hardware));
      p.set(keys.worker(type, w.id, "config"), "{}");
      p.set(keys.worker(type, w.id, "gen"), "0");
      p.hset(keys.worker(type, w.id, "state"), "state", w.state, "last_seen", encodeUnixFloat(w.lastSeen), "last_error", w.lastError ?? "");
    }
    p.sadd(keys.workerTypeIndex(type), ...chunk.map((w) => w.id));
    p.sadd(WORKER_ALL_INDEX, ...chunk.map((w) => keys.workerAllMember(type, w.id)));
    const results = (await p.exec()) ?? [];
    const failed = results.find(([err]) => err !== null);
    if (failed) throw failed[0];
  }
}
