// Worker-thread entry: owns a backend connection and a ChangeDetector, answers polls.
import { parentPort, workerData } from "node:worker_threads";

import { backendFromUrl } from "@fleet/backend/url";

import { ChangeDetector, WorkerReads, readSnapshot } from "./change-detector";
import type { FromSnapshotWorker, SnapshotWorkerData, ToSnapshotWorker } from "./snapshot-protocol";

const data = workerData as SnapshotWorkerData;
const port = parentPort;
if (!port) throw new Error("snapshot-worker runs as a worker thread only");

const backend = backendFromUrl(data.backendUrl, data.workerCacheBytes === undefined ? {} : { workerCache: { bytes: data.workerCacheBytes } });
const detector = new ChangeDetector();
const workers = new WorkerReads();

port.on("message", (msg: ToSnapshotWorker) => {
  void (async () => {
    let reply: FromSnapshotWorker;
    try {
      const changes = detector.apply(await readSnapshot(backend, msg.now, data.offlineAfterSeconds, msg.names, workers));
      reply = { kind: "result", seq: msg.seq, changes };
    } catch (err) {
      reply = { kind: "error", seq: msg.seq, message: err instanceof Error ? err.message : String(err) };
    }
    port.postMessage(reply);
  })();
});
