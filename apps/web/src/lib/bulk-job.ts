// How two readings of one bulk job (issue 14.2) combine in the tab's cache: a frame of the
// event stream, the answer of the request that started it, a refetch.
import type { BulkJob } from "@fleet/schema";

const BULK_STATE_RANK: Record<BulkJob["state"], number> = { running: 0, done: 1, cancelled: 1, failed: 1 };

/**
 * The newer of two readings of one job, whatever order they arrive in (a frame, the POST's
 * answer, a refetch that was under way): an ended job stays ended, counts only grow.
 */
export function mergeBulkJob(old: BulkJob | undefined, next: BulkJob): BulkJob {
  if (old === undefined || old.id !== next.id) return next;
  if (BULK_STATE_RANK[old.state] > BULK_STATE_RANK[next.state]) return old;
  if (old.state === next.state && next.scanned < old.scanned) return old;
  return next;
}
