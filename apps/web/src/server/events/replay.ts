// A stream that misses nothing (issue 15.3): the hub keeps the frames of the last minute in a
// bounded buffer, and a browser that reconnects with `Last-Event-ID` gets back exactly the
// frames it missed, or, when that cannot be done, one `sync` frame telling it to refetch.
//
// Ids are `<hub>-<n>`: `<hub>` names this hub (random, per process), `<n>` increases with
// every frame it numbers. An id of another hub (another replica behind the load balancer, or
// this process before a restart) cannot be replayed here: refetch. Nor can one older than the
// buffer (away too long: more than the window, the frame cap or the byte cap), nor one from
// before the hub last stopped watching (its loop runs only while someone listens, plus a grace
// period as long as the window: changes made while it did not run were never framed).
//
// Pure bookkeeping (no timers, no I/O); the hub numbers and records, the SSE route asks.
import { randomBytes } from "node:crypto";

export interface ReplayOptions {
  /** Frames are kept this long; 0 switches replay off (every reconnect refetches). */
  windowMs: number;
  maxFrames: number;
  maxBytes: number;
}

export const DEFAULT_REPLAY: ReplayOptions = { windowMs: 60_000, maxFrames: 5_000, maxBytes: 8 * 1024 * 1024 };

export interface ReplayFrame {
  seq: number;
  topic: string | null;
  frame: Uint8Array;
}

export type Resume = { mode: "fresh" } | { mode: "replayed"; frames: ReplayFrame[] } | { mode: "refetch"; reason: string };

interface Held extends ReplayFrame {
  atMs: number;
}

export class ReplayBuffer {
  /** This hub's name in its ids. */
  readonly tag: string;
  private frames: Held[] = [];
  private bytes = 0;
  /** Every frame numbered after `floor` is held (until the newest). */
  private floor = 0;

  constructor(
    readonly opts: ReplayOptions,
    private readonly nowMs: () => number = Date.now,
    tag?: string,
  ) {
    this.tag = tag ?? randomBytes(4).toString("hex");
  }

  get enabled(): boolean {
    return this.opts.windowMs > 0 && this.opts.maxFrames > 0;
  }

  get size(): { frames: number; bytes: number } {
    return { frames: this.frames.length, bytes: this.bytes };
  }

  wireId(seq: number): string {
    return `${this.tag}-${seq}`;
  }

  /** Records a frame the hub just numbered. */
  push(seq: number, topic: string | null, frame: Uint8Array): void {
    if (!this.enabled) {
      this.floor = seq;
      return;
    }
    this.frames.push({ seq, topic, frame, atMs: this.nowMs() });
    this.bytes += frame.byteLength;
    this.evict();
  }

  /** Nothing up to `seq` can be replayed: the hub did not watch before it (a restart). */
  gap(seq: number): void {
    this.floor = Math.max(this.floor, seq);
    this.frames = this.frames.filter((f) => f.seq > this.floor);
    this.bytes = this.frames.reduce((n, f) => n + f.frame.byteLength, 0);
  }

  private evict(): void {
    const oldest = this.nowMs() - this.opts.windowMs;
    let drop = 0;
    let bytes = this.bytes;
    while (drop < this.frames.length && (this.frames[drop]!.atMs < oldest || this.frames.length - drop > this.opts.maxFrames || bytes > this.opts.maxBytes)) {
      bytes -= this.frames[drop]!.frame.byteLength;
      drop++;
    }
    if (drop === 0) return;
    this.floor = Math.max(this.floor, this.frames[drop - 1]!.seq);
    this.frames = this.frames.slice(drop);
    this.bytes = bytes;
  }

  /**
   * What a client that last saw `lastEventId` (null: none) needs, given the hub's newest
   * number `newest`: nothing to catch up (fresh), the frames after it, or a refetch.
   */
  since(lastEventId: string | null, newest: number): Resume {
    if (lastEventId === null || lastEventId.trim() === "") return { mode: "fresh" };
    const m = /^([0-9a-f]+)-(\d{1,15})$/.exec(lastEventId.trim());
    if (!m) return { mode: "refetch", reason: "the last event id is not one of this console's" };
    if (m[1] !== this.tag) return { mode: "refetch", reason: "the last event id comes from another console process (another replica, or before a restart)" };
    if (!this.enabled) return { mode: "refetch", reason: "replay is switched off (FLEET_EVENTS_REPLAY_SECONDS=0)" };
    const seq = Number(m[2]);
    if (seq > newest) return { mode: "refetch", reason: "the last event id is newer than this hub's newest" };
    this.evict();
    if (seq < this.floor) return { mode: "refetch", reason: "away longer than the replay buffer reaches back" };
    return { mode: "replayed", frames: this.frames.filter((f) => f.seq > seq) };
  }
}
