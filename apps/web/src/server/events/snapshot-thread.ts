// The snapshot source that reads in a worker thread (see ./snapshot-source). Falls back
// to reading inline when a worker cannot be started at all, so live events never depend
// on it.
import { Worker } from "node:worker_threads";

import type { DetectedChange, KnownNames } from "./change-detector";
import type { FromSnapshotWorker, SnapshotWorkerData, ToSnapshotWorker } from "./snapshot-protocol";
import type { SnapshotSource } from "./snapshot-source";

/** Consecutive workers that died without answering, after which the source reads inline for good. */
const MAX_START_FAILURES = 3;

export class ThreadSnapshotSource implements SnapshotSource {
  private worker: Worker | null = null;
  /** Whether the current worker has answered at least once (it really works). */
  private answered = false;
  private seq = 0;
  private readonly pending = new Map<number, { resolve: (c: DetectedChange[]) => void; reject: (e: Error) => void }>();
  private startFailures = 0;
  private fallback: SnapshotSource | null = null;
  private closed = false;
  private started = 0;

  constructor(
    private readonly data: SnapshotWorkerData,
    private readonly makeFallback: () => SnapshotSource,
    private readonly log: (message: string, err?: unknown) => void,
    /** Starts the worker; replaceable so a test can start one that cannot load. */
    private readonly spawn: (data: SnapshotWorkerData) => Worker = spawnSnapshotWorker,
  ) {}

  /** Every worker thread and the fallback start from a baseline of their own. */
  get baselines(): number {
    return this.started;
  }

  /** "inline" once this source gave up on threads. */
  get kind(): "inline" | "thread" {
    return this.fallback ? "inline" : "thread";
  }

  async poll(now: number, names: KnownNames): Promise<DetectedChange[]> {
    if (this.closed) throw new Error("snapshot source closed");
    if (this.fallback) return this.fallback.poll(now, names);
    const worker = this.ensureWorker();
    const seq = ++this.seq;
    return new Promise<DetectedChange[]>((resolve, reject) => {
      this.pending.set(seq, { resolve, reject });
      const msg: ToSnapshotWorker = { kind: "poll", seq, now, names };
      worker.postMessage(msg);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.failPending(new Error("snapshot source closed"));
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
    await this.fallback?.close();
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = this.spawn(this.data);
    this.started++;
    worker.unref();
    this.answered = false;
    worker.on("message", (msg: FromSnapshotWorker) => {
      this.answered = true;
      this.startFailures = 0;
      const p = this.pending.get(msg.seq);
      if (!p) return; // answer to a poll that timed out on our side
      this.pending.delete(msg.seq);
      if (msg.kind === "result") p.resolve(msg.changes);
      else p.reject(new Error(msg.message));
    });
    const onGone = (err: unknown) => {
      if (this.worker !== worker) return;
      this.worker = null;
      this.failPending(err instanceof Error ? err : new Error("the snapshot worker stopped"));
      if (this.closed) return;
      // A worker that died before answering anything (its code cannot load here) counts
      // as a failed start; one that worked and crashed later is simply started again.
      if (!this.answered && ++this.startFailures >= MAX_START_FAILURES) {
        this.log("snapshot worker cannot start; reading snapshots in the request thread instead", err);
        this.fallback = this.makeFallback();
        this.started++;
      }
    };
    worker.on("error", onGone);
    worker.on("exit", (code) => onGone(new Error(`the snapshot worker exited with code ${code}`)));
    this.worker = worker;
    return worker;
  }

  private failPending(err: Error): void {
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }
}

function spawnSnapshotWorker(data: SnapshotWorkerData): Worker {
  // Inside Next (build or dev) the bundler turns the literal `new Worker(new URL(...))`
  // below into a compiled chunk; NEXT_RUNTIME is how this code knows it runs there (the
  // bundle keeps the source file's import.meta.url, so that cannot tell). Unbundled
  // (vitest, tsx) the entry is TypeScript: the thread registers tsx's loader first.
  if (process.env.NEXT_RUNTIME === undefined) {
    const entry = import.meta.url.replace(/snapshot-thread\.ts$/, "snapshot-worker.ts");
    return new Worker(`import("tsx/esm/api").then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`, { eval: true, workerData: data });
  }
  return new Worker(new URL("./snapshot-worker.ts", import.meta.url), { workerData: data });
}
