// The route table the OpenAPI document (./document.ts) is generated from: every route.ts
// under src/app/api/v1, with what its source cannot say (an operation id, a summary, the
// body shape of a route that checks its own JSON). Everything else (path, role, query,
// body, response schemas and status) comes from the route({...}) call itself, read at run
// time through declaredSpec(). The few handlers not made by route() (a stream, Prometheus
// text, health, sign-in) are described here by hand, under `manual`.
//
// openapi.test.ts walks every route.ts (test/route-walk.ts): a route missing here, or an
// entry naming a route or method that does not exist, fails it.
import {
  ConfigBodySchema,
  DeadLetterActionBodySchema,
  HealthSchema,
  JsonObjectSchema,
  SearchLineSchema,
  SessionInfoSchema,
  SignInBodySchema,
  SignInResultSchema,
  SignOutBodySchema,
  SignOutResultSchema,
  SubmitTasksBodySchema,
  type Role,
} from "@fleet/schema";
import { z } from "zod";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** What a handler that is not made by route() does, said by hand. */
export interface ManualOperation {
  role: Role | "public";
  /** Its query parameters, as a zod object of optional strings (input side). */
  query?: z.ZodObject;
  body?: { schema: z.ZodType; required: boolean };
  success: {
    status: number;
    description: string;
    /** Content type and, for JSON, the schema; omitted for an answer without a body. */
    contentType: string;
    schema?: z.ZodType;
  };
  /** The error statuses it can answer. */
  errors: number[];
}

export interface OperationInfo {
  operationId: string;
  summary: string;
  description?: string;
  /** The shape of the body of a `body: "json"` route, which checks its JSON itself. */
  body?: z.ZodType;
  /** Content types the body may be sent as besides application/json. */
  bodyTypes?: string[];
  /** Takes `If-Match: "<gen>"` (412 when stale) and answers an `ETag`. */
  ifMatch?: boolean;
  /** Answers an `ETag` header. */
  etag?: boolean;
  /** Error statuses beyond those every route of its kind can answer (see document.ts). */
  errors?: number[];
  /** Not in API.md: added by the console (apps/web/README.md, "Extensions beyond API.md"). */
  extension?: boolean;
  manual?: ManualOperation;
}

export interface RouteEntry {
  /** Below /api/v1, with `[param]` segments, exactly as the route's route({ path }). */
  path: string;
  /** The route module, loaded when the document is first built (never at import). */
  load: () => Promise<Record<string, unknown>>;
  operations: Partial<Record<HttpMethod, OperationInfo>>;
}

/** Descriptions of query parameters by name, for schemas that carry none. */
export const QUERY_PARAM_DESCRIPTIONS: Record<string, string> = {
  limit: "At most this many items (0 to 1000).",
  offset: "Skip this many items first.",
  cursor: "0 to start, then each answer's next_cursor until it is null (a console extension: large kv namespaces and pools are paged by cursor, not offset).",
  preview_bytes: "Cut every raw value of the answer at this many bytes instead of 4096 (1 to 16777216; a console extension).",
  type: "Only workers of this automation type.",
  status: "Only workers with this status.",
  q: "Matches the worker id or the hostname.",
  error_group: "Only workers whose last_error normalises to this error group (GET /errors); a console extension.",
  sort: "name (type, then id), last_seen (oldest first) or -last_seen (newest first); a console extension.",
  since: "Only frames after this time (unix seconds).",
  order: "newest or oldest first.",
  actor: "Only entries by this actor.",
  action: "Only this action, exactly or as a prefix at a dot (`worker` matches `worker.delete`).",
  target: "Only entries whose target contains this.",
  topics: "Comma-separated channel globs (`a,b.*`) filtering bus frames; at most 32 patterns of at most 200 characters and 16 `*`.",
};

/** What a path parameter names, by the collection it follows. */
export const PATH_PARAM_DESCRIPTIONS: Record<string, string> = {
  "workers/type": "Automation type of the worker.",
  "automations/type": "Automation type.",
  "type/id": "Worker id.",
  "queues/name": "Queue name.",
  "pools/name": "Pool name.",
  "items/id": "Pool item id.",
  "bulk/id": "Bulk job id.",
  "audit/id": "Audit entry id (16 hex digits, as GET /audit lists it).",
  "streams/name": "Stream name.",
  "locks/name": "Lock name.",
  "counters/name": "Counter name.",
  "kv/ns": "Key-value namespace (up to the first `:` of the key).",
  "ns/key": "Key within the namespace.",
};

const EventsQuerySchema = z.object({ topics: z.string().optional() });
const SearchQueryDocSchema = z.object({
  q: z.string().optional().describe("Case-insensitive substring of the task body (at most 500 characters)."),
  where: z
    .string()
    .optional()
    .describe("A filter: fields (id, attempts, last_error, error_group, payload.<path>, any body member), = != < <= > >= ~, and, or, not, parentheses; at most 1000 characters."),
  in: z.string().optional().describe("Comma-separated lists to search: pending, processing, scheduled, dead (default all)."),
  limit: z.string().optional().describe("At most this many match lines (0 to 1000, default 200); further matches are counted in the last line."),
});

export const ROUTE_TABLE: RouteEntry[] = [
  {
    path: "/audit",
    load: () => import("@/app/api/v1/audit/route"),
    operations: {
      GET: {
        operationId: "listAuditEntries",
        summary: "The console's audit trail, newest first",
        description: "Every change made through the console, refused ones included. Filters by actor, action and target.",
        extension: true,
      },
    },
  },
  {
    path: "/audit/[id]/changes",
    load: () => import("@/app/api/v1/audit/[id]/changes/route"),
    operations: {
      GET: {
        operationId: "listAuditEntryChanges",
        summary: "Every worker's change of a fleet-wide config write, paged",
        description:
          'An entry of a rollout or bulk config change lists the first 100 workers in `changes`, their configs whole up to 128 KiB in all (past it by size and digest); when it says `changes_kept` (more than 100 workers, or values listed by digest), all of them are kept beside it for 30 days and read here, in the entry\'s order ("revert to before" of the whole write). 404 when none are kept.',
        extension: true,
        errors: [404],
      },
    },
  },
  {
    path: "/auth/session",
    load: () => import("@/app/api/v1/auth/session/route"),
    operations: {
      GET: {
        operationId: "getSession",
        summary: "The authentication mode and who the caller is",
        extension: true,
        manual: {
          role: "public",
          success: { status: 200, description: "The mode, and the caller (null when nobody is signed in).", contentType: "application/json", schema: SessionInfoSchema },
          errors: [421, 500],
        },
      },
    },
  },
  {
    path: "/auth/signin",
    load: () => import("@/app/api/v1/auth/signin/route"),
    operations: {
      POST: {
        operationId: "signIn",
        summary: "Sign in with a user name and password; sets the session cookie",
        description: "Throttled per user name and address (429 with Retry-After). A wrong name or password answers 401 with one message for both.",
        extension: true,
        manual: {
          role: "public",
          body: { schema: SignInBodySchema, required: true },
          success: { status: 200, description: "Signed in; Set-Cookie carries the session.", contentType: "application/json", schema: SignInResultSchema },
          errors: [400, 401, 403, 413, 415, 421, 429, 500, 503],
        },
      },
    },
  },
  {
    path: "/auth/signout",
    load: () => import("@/app/api/v1/auth/signout/route"),
    operations: {
      POST: {
        operationId: "signOut",
        summary: "End the session (or every session of the user) and clear the cookie",
        extension: true,
        manual: {
          role: "public",
          body: { schema: SignOutBodySchema, required: false },
          success: { status: 200, description: "Signed out; Set-Cookie clears the cookie.", contentType: "application/json", schema: SignOutResultSchema },
          errors: [400, 403, 413, 415, 421, 500, 503],
        },
      },
    },
  },
  {
    path: "/automations",
    load: () => import("@/app/api/v1/automations/route"),
    operations: { GET: { operationId: "listAutomations", summary: "Automations: catalog entries and types seen in wkrs:all" } },
  },
  {
    path: "/automations/[type]",
    load: () => import("@/app/api/v1/automations/[type]/route"),
    operations: { GET: { operationId: "getAutomation", summary: "One automation: schemas, worker counts, queue and stream" } },
  },
  {
    path: "/automations/[type]/config",
    load: () => import("@/app/api/v1/automations/[type]/config/route"),
    operations: {
      PATCH: {
        operationId: "rolloutAutomationConfig",
        summary: "Apply a JSON merge patch to the config of every worker of the type",
        description: "All merged configs are validated against the catalog's config schema first, then all are written; nothing is written when one fails.",
        body: ConfigBodySchema,
        bodyTypes: ["application/merge-patch+json"],
        errors: [409],
      },
    },
  },
  {
    path: "/automations/[type]/tasks",
    load: () => import("@/app/api/v1/automations/[type]/tasks/route"),
    operations: {
      POST: {
        operationId: "submitTasks",
        summary: "Submit one task or up to 1000",
        description: 'Payloads are validated against the catalog\'s task_payload schema; each task is pushed as {"id", "payload"}.',
        body: SubmitTasksBodySchema,
        errors: [409],
      },
    },
  },
  {
    path: "/counters",
    load: () => import("@/app/api/v1/counters/route"),
    operations: { GET: { operationId: "listCounters", summary: "Counters and their values" } },
  },
  {
    path: "/counters/[name]",
    load: () => import("@/app/api/v1/counters/[name]/route"),
    operations: {
      PUT: { operationId: "setCounter", summary: "Set a counter" },
      DELETE: { operationId: "deleteCounter", summary: "Delete a counter" },
    },
  },
  {
    path: "/events",
    load: () => import("@/app/api/v1/events/route"),
    operations: {
      GET: {
        operationId: "streamEvents",
        summary: "Live events (Server-Sent Events)",
        description:
          "A comment line at once, a heartbeat comment at least every 15 s. Every frame has `id:` and `event:` (bus, workers, queues, pools or streams) and JSON `data:`; `x-fleet-events` names the schema of each event's data. `topics` filters bus frames only.",
        manual: {
          role: "viewer",
          query: EventsQuerySchema,
          success: { status: 200, description: "The event stream, until the client leaves or its credentials end.", contentType: "text/event-stream" },
          errors: [400, 401, 403, 421, 503],
        },
      },
    },
  },
  {
    path: "/health",
    load: () => import("@/app/api/v1/health/route"),
    operations: {
      GET: {
        operationId: "getHealth",
        summary: "Backend health; open to load balancers",
        manual: {
          role: "public",
          success: { status: 200, description: "The backend answers.", contentType: "application/json", schema: HealthSchema },
          errors: [421, 500, 503],
        },
      },
    },
  },
  {
    path: "/kv",
    load: () => import("@/app/api/v1/kv/route"),
    operations: { GET: { operationId: "listKvNamespaces", summary: "Key-value namespaces and their key counts" } },
  },
  {
    path: "/kv/[ns]",
    load: () => import("@/app/api/v1/kv/[ns]/route"),
    operations: { GET: { operationId: "listKvKeys", summary: "Keys of one namespace" } },
  },
  {
    path: "/kv/[ns]/[key]",
    load: () => import("@/app/api/v1/kv/[ns]/[key]/route"),
    operations: {
      GET: { operationId: "getKvValue", summary: "One value and its TTL" },
      PUT: { operationId: "putKvValue", summary: "Store a value (as Python's json.dumps writes it), optionally with a TTL" },
      DELETE: { operationId: "deleteKvValue", summary: "Delete a key" },
    },
  },
  {
    path: "/locks",
    load: () => import("@/app/api/v1/locks/route"),
    operations: { GET: { operationId: "listLocks", summary: "Held locks and their TTLs" } },
  },
  {
    path: "/locks/[name]",
    load: () => import("@/app/api/v1/locks/[name]/route"),
    operations: { DELETE: { operationId: "releaseLock", summary: "Force-release a lock, whoever holds it" } },
  },
  {
    path: "/metrics",
    load: () => import("@/app/api/v1/metrics/route"),
    operations: {
      GET: {
        operationId: "getMetrics",
        summary: "Prometheus metrics (text exposition 0.0.4)",
        description: "Every metric name starts with fleet_. A backend outage answers 200 with fleet_backend_up 0.",
        manual: {
          role: "viewer",
          success: { status: 200, description: "Prometheus text exposition.", contentType: "text/plain; version=0.0.4; charset=utf-8" },
          errors: [401, 403, 421, 503],
        },
      },
    },
  },
  {
    path: "/openapi.json",
    load: () => import("@/app/api/v1/openapi.json/route"),
    operations: {
      GET: {
        operationId: "getOpenApiDocument",
        summary: "This document: OpenAPI 3.1, generated from the route table and the zod schemas",
        extension: true,
      },
    },
  },
  {
    path: "/pools",
    load: () => import("@/app/api/v1/pools/route"),
    operations: { GET: { operationId: "listPools", summary: "Pools: sizes, live, expired and claimed items" } },
  },
  {
    path: "/pools/[name]",
    load: () => import("@/app/api/v1/pools/[name]/route"),
    operations: {
      GET: { operationId: "getPool", summary: "Items of one pool" },
      DELETE: { operationId: "deletePool", summary: "Delete a pool and every claim key of it" },
    },
  },
  {
    path: "/pools/[name]/items/[id]",
    load: () => import("@/app/api/v1/pools/[name]/items/[id]/route"),
    operations: {
      GET: { operationId: "getPoolItem", summary: "One pool item", extension: true },
      DELETE: { operationId: "deletePoolItem", summary: "Remove an item and its claim" },
    },
  },
  {
    path: "/pools/[name]/items/[id]/release",
    load: () => import("@/app/api/v1/pools/[name]/items/[id]/release/route"),
    operations: { POST: { operationId: "releasePoolItem", summary: "Drop an item's claim" } },
  },
  {
    path: "/pools/[name]/items/[id]/reveal",
    load: () => import("@/app/api/v1/pools/[name]/items/[id]/reveal/route"),
    operations: {
      POST: {
        operationId: "revealPoolItem",
        summary: "One item with its secrets unmasked (operator, audited as pool.item.reveal); every other read masks them",
      },
    },
  },
  {
    path: "/queues",
    load: () => import("@/app/api/v1/queues/route"),
    operations: { GET: { operationId: "listQueues", summary: "Every queue that has any key, with its depths" } },
  },
  {
    path: "/queues/[name]",
    load: () => import("@/app/api/v1/queues/[name]/route"),
    operations: { GET: { operationId: "getQueue", summary: "One queue: depths, pending, processing and scheduled items" } },
  },
  {
    path: "/queues/[name]/dead",
    load: () => import("@/app/api/v1/queues/[name]/dead/route"),
    operations: { GET: { operationId: "listDeadLetters", summary: "Dead letters of a queue, each with its ref (SHA-1 of the raw bytes)" } },
  },
  {
    path: "/queues/[name]/dead/requeue",
    load: () => import("@/app/api/v1/queues/[name]/dead/requeue/route"),
    operations: {
      POST: {
        operationId: "requeueDeadLetters",
        summary: "Move dead letters back onto the normal pending list, atomically",
        body: DeadLetterActionBodySchema,
      },
    },
  },
  {
    path: "/queues/[name]/dead/delete",
    load: () => import("@/app/api/v1/queues/[name]/dead/delete/route"),
    operations: { POST: { operationId: "deleteDeadLetters", summary: "Delete dead letters", body: DeadLetterActionBodySchema } },
  },
  {
    path: "/queues/[name]/search",
    load: () => import("@/app/api/v1/queues/[name]/search/route"),
    operations: {
      GET: {
        operationId: "searchQueue",
        summary: "Search a queue's tasks by text and by fields, streamed as found (NDJSON)",
        description:
          "Reads the queue's pending lists (high, normal, low), reservations, scheduled retries and dead letters in chunks and answers one JSON line per match as it is found " +
          "(`type: match`: the list, priority, index, `ref` = hex SHA-1 of the body as the dead-letter routes address it, task id, attempts, last_error, the body as text cut to 1000 characters), " +
          "`type: progress` lines, and a last `type: done` line with the counts (or `type: error` when the backend fails midway). " +
          '`q` is a case-insensitive substring of the body; `where` a filter (`payload.customer = "c17" and attempts >= 3`, `last_error ~ "timeout"`, `error_group = "Timeout after <n>s"`; the language is in the README\'s Search section): ' +
          "one that does not parse answers 422 naming the position and what was expected. The scan stops when the client goes away.",
        extension: true,
        manual: {
          role: "viewer",
          query: SearchQueryDocSchema,
          success: {
            status: 200,
            description: "NDJSON: one SearchLine per line, the last one `done` (or `error`).",
            contentType: "application/x-ndjson",
            schema: SearchLineSchema,
          },
          errors: [400, 401, 403, 404, 421, 422, 503],
        },
      },
    },
  },
  {
    path: "/queues/[name]/bulk",
    load: () => import("@/app/api/v1/queues/[name]/bulk/route"),
    operations: {
      GET: { operationId: "listBulkJobs", summary: "This queue's bulk jobs, newest first", extension: true },
      POST: {
        operationId: "startBulkJob",
        summary: "Requeue or delete every matching dead letter, or delete every matching pending task, as a job",
        description:
          "After a preview (the search with `in=dead` or `in=pending`), start a job that acts on every task matching `q` and `where` at no more than `rate` tasks per second, " +
          "in atomic chunks that re-check each body (never lost or moved twice), resumed by another console if this one dies. `expected` is the count the confirmation named. Answers 202 with the job.",
        extension: true,
      },
    },
  },
  {
    path: "/queues/[name]/bulk/[id]",
    load: () => import("@/app/api/v1/queues/[name]/bulk/[id]/route"),
    operations: { GET: { operationId: "getBulkJob", summary: "One bulk job: its state and counts", extension: true } },
  },
  {
    path: "/queues/[name]/bulk/[id]/cancel",
    load: () => import("@/app/api/v1/queues/[name]/bulk/[id]/cancel/route"),
    operations: { POST: { operationId: "cancelBulkJob", summary: "Stop a running bulk job after its current chunk", extension: true, errors: [409] } },
  },
  {
    path: "/queues/[name]/sweep",
    load: () => import("@/app/api/v1/queues/[name]/sweep/route"),
    operations: { POST: { operationId: "sweepQueue", summary: "Re-queue reservations past their deadline, now" } },
  },
  {
    path: "/streams",
    load: () => import("@/app/api/v1/streams/route"),
    operations: { GET: { operationId: "listStreams", summary: "Streams and their lengths" } },
  },
  {
    path: "/streams/[name]",
    load: () => import("@/app/api/v1/streams/[name]/route"),
    operations: { GET: { operationId: "getStream", summary: "Entries of a stream, without popping" } },
  },
  {
    path: "/workers",
    load: () => import("@/app/api/v1/workers/route"),
    operations: { GET: { operationId: "listWorkers", summary: "Workers, sorted by type then id, with counts by status" } },
  },
  {
    path: "/workers/[type]/[id]",
    load: () => import("@/app/api/v1/workers/[type]/[id]/route"),
    operations: {
      GET: { operationId: "getWorker", summary: "One worker, with the length of its stats history", etag: true },
      DELETE: { operationId: "deleteWorker", summary: "Remove every key of a worker and both index entries", errors: [409] },
    },
  },
  {
    path: "/workers/[type]/[id]/config",
    load: () => import("@/app/api/v1/workers/[type]/[id]/config/route"),
    operations: {
      PATCH: {
        operationId: "patchWorkerConfig",
        summary: "Apply a JSON merge patch (RFC 7386) to a worker's config",
        description: "The merged config is validated against the catalog's config schema; config and generation are written atomically.",
        body: JsonObjectSchema,
        bodyTypes: ["application/merge-patch+json"],
        ifMatch: true,
        errors: [409],
      },
      PUT: {
        operationId: "putWorkerConfig",
        summary: "Replace a worker's whole config",
        body: JsonObjectSchema,
        ifMatch: true,
        errors: [409],
      },
    },
  },
  {
    path: "/workers/[type]/[id]/stats",
    load: () => import("@/app/api/v1/workers/[type]/[id]/stats/route"),
    operations: { GET: { operationId: "getWorkerStats", summary: "Stats frames after `since`, oldest first" } },
  },
  {
    path: "/workers/[type]/[id]/errors",
    load: () => import("@/app/api/v1/workers/[type]/[id]/errors/route"),
    operations: { GET: { operationId: "getWorkerErrors", summary: "The worker's error history as the console's watch saw it, newest first (the last 50)" } },
  },
  {
    path: "/alerts",
    load: () => import("@/app/api/v1/alerts/route"),
    operations: { GET: { operationId: "getAlerts", summary: "What fires now, deliveries not made yet, and the recent history of alerts" } },
  },
  {
    path: "/alerts/rules",
    load: () => import("@/app/api/v1/alerts/rules/route"),
    operations: {
      GET: { operationId: "getAlertRules", summary: "The alert rules and webhooks (webhook secrets masked), with their generation as ETag" },
      PUT: {
        operationId: "putAlertRules",
        summary: "Replace the alert rules and webhooks (If-Match: the generation read)",
        body: JsonObjectSchema,
        ifMatch: true,
        errors: [409],
      },
    },
  },
  {
    path: "/history",
    load: () => import("@/app/api/v1/history/route"),
    operations: { GET: { operationId: "getFleetHistory", summary: "The fleet-wide queue history strip (sums over every queue) for a range" } },
  },
  {
    path: "/errors",
    load: () => import("@/app/api/v1/errors/route"),
    operations: {
      GET: {
        operationId: "getErrorGroups",
        summary: "Fleet-wide error groups: dead letters' and workers' last_error grouped by the normalised message",
        description:
          "Dead letters: the newest 1,000 of each queue, queues with the most dead letters first, 20,000 in all (`scanned` says what was read); workers: every worker's last_error. Computed at most every 10 s per console process (`computed_at`, `max_age_seconds`).",
        extension: true,
      },
    },
  },
  {
    path: "/queues/[name]/errors",
    load: () => import("@/app/api/v1/queues/[name]/errors/route"),
    operations: {
      GET: {
        operationId: "getQueueErrorGroups",
        summary: "A queue's error groups: its newest 5,000 dead letters and the workers of the automation of that name",
        description: "Groups by normalizeErrorMessage(last_error), the search filter's `error_group`. Computed at most every 10 s per console process.",
        extension: true,
      },
    },
  },
  {
    path: "/workers/bulk-remove",
    load: () => import("@/app/api/v1/workers/bulk-remove/route"),
    operations: {
      POST: {
        operationId: "bulkRemoveWorkers",
        summary: "Remove offline workers in bulk: named ones, or every offline worker matching a filter",
        description:
          "Named workers must all be offline (409 otherwise, nothing removed). Each removal re-checks last_seen atomically; a worker that reported meanwhile is kept (`kept_online`). One audit entry with the counts.",
        errors: [409],
        extension: true,
      },
    },
  },
  {
    path: "/workers/bulk-config",
    load: () => import("@/app/api/v1/workers/bulk-config/route"),
    operations: {
      POST: {
        operationId: "bulkConfigWorkers",
        summary: "Apply one JSON merge patch to selected workers of one automation, each at the generation the review showed",
        description:
          "412 when a worker's generation moved since the review, 422 when a merged config fails the catalog's schema, 409 when one moved during the write: nothing is written in each case. Workers the patch would not change are left alone.",
        errors: [404, 409, 412],
        extension: true,
      },
    },
  },
  {
    path: "/queues/[name]/history",
    load: () => import("@/app/api/v1/queues/[name]/history/route"),
    operations: { GET: { operationId: "getQueueHistory", summary: "A queue's recorded depths and throughput for a range (1h, 24h, 30d)" } },
  },
];
