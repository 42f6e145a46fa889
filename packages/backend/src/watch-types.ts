// The part of the Backend contract behind the console's watch (issue 15): what queue
// history needs to read in one round trip per tick, the fixed-size rings it keeps under
// fleet:console:history:, and the alert rules, firing alerts, delivery outbox and alert
// history under fleet:console:alerts:. Key names: `consoleKeys` in ./keys. The app decides
// what the bytes mean (apps/web/src/server/history, .../alerts); the backend only stores them,
// batched, bounded and atomic where it matters.
import type { Priority } from "./keys";
import type { BytesLike, QueueDepths } from "./types";

/** What the watch asks of one queue per tick. */
export interface QueueWatchRequest {
  name: string;
  /**
   * Per pending list, bodies seen at its tail on earlier ticks, oldest first ("marks"): the
   * answer says which is the oldest still in the list and where, within the first `maxScan`
   * entries. That is how the watch learns how far a FIFO list moved (Fleet keeps no counters).
   */
  marks?: Partial<Record<Priority, Buffer[]>>;
}

export interface PendingListWatch {
  length: number;
  /** The newest body (the list's tail); null when the list is empty or the body is longer than `maxTailBytes`. */
  tail: Buffer | null;
  /** Bytes of the tail body (0 when empty), also when it was too long to return. */
  tailBytes: number;
  /** The oldest mark found within the first `maxScan` entries: its index among the marks sent and its position from the head. */
  found: { mark: number; position: number } | null;
}

export interface QueueWatch {
  depths: QueueDepths;
  lists: Record<Priority, PendingListWatch>;
}

export interface QueueWatchOptions {
  /** Unix seconds, for overdue and due. */
  now?: number;
  maxTailBytes: number;
  /** Entries from the head a mark is looked for in (LPOS MAXLEN). */
  maxScan: number;
}

/** The two resolutions of queue history: 10-second and 5-minute points. */
export type HistoryTier = "10s" | "5m";

/** Which history a ring belongs to: one queue's, or the whole fleet's (null). */
export type HistorySeries = string | null;

export interface HistorySlotWrite {
  series: HistorySeries;
  tier: HistoryTier;
  /** Byte offset in the ring (the slot index times the record size). */
  offset: number;
  bytes: Buffer;
}

export interface HistoryRangeRead {
  series: HistorySeries;
  tier: HistoryTier;
  offset: number;
  length: number;
}

export interface AlertStateRead {
  /** Firing alert instances, by instance key. */
  firing: Map<string, Buffer>;
  /** Deliveries waiting (retries included), by delivery id. */
  outbox: Map<string, Buffer>;
  /** The newest alert history entries, newest first. */
  history: Buffer[];
  historyTotal: number;
}

export interface AlertStateChange {
  firingSet?: Map<string, Buffer>;
  firingDel?: string[];
  outboxSet?: Map<string, Buffer>;
  outboxDel?: string[];
  /** Appended to the alert history, in this order (the last one ends up newest). */
  history?: Buffer[];
  /** Length cap of the alert history list. */
  historyMax: number;
}

export interface WatchBackend {
  /**
   * Depths of every named queue and, per pending list, its length, tail and where the oldest
   * mark still sits, in one round trip (Redis: one pipeline).
   */
  queueWatch(queues: QueueWatchRequest[], opts: QueueWatchOptions): Promise<QueueWatch[]>;
  /**
   * Writes records into the fixed-size history rings (SETRANGE), renews their TTL, and, when
   * `latest` is given, replaces the latest-figures hash with it, atomically (MULTI).
   */
  historyWrite(slots: HistorySlotWrite[], opts: { ttlSeconds: number; latest?: Map<string, Buffer> }): Promise<void>;
  /** Byte ranges of history rings (GETRANGE), one round trip; a missing ring reads as zero bytes. */
  historyRead(reads: HistoryRangeRead[]): Promise<Buffer[]>;
  /** The latest figures per queue, as the watch wrote them last. */
  historyLatest(): Promise<Map<string, Buffer>>;

  /** The alert rules document and its generation (0 before the first write). */
  alertRulesGet(): Promise<{ doc: Buffer | null; gen: number }>;
  /**
   * Writes the alert rules document when its generation is still `expectedGen`, bumping it;
   * else throws StaleGenerationError and writes nothing.
   */
  alertRulesSet(doc: BytesLike, expectedGen: number): Promise<{ gen: number }>;
  /** Firing alerts, the delivery outbox and the newest `historyLimit` history entries, in one round trip. */
  alertStateRead(historyLimit: number): Promise<AlertStateRead>;
  /** Applies a change to firing alerts, outbox and history in one atomic step (MULTI). */
  alertStateWrite(change: AlertStateChange): Promise<void>;
}
