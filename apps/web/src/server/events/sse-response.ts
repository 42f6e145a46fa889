// GET /api/v1/events: attaches one hub listener per connection and streams its frames.
// The route only attaches and detaches; all Redis work is the hub's, shared by everyone.
// A stream lives no longer than the credentials that opened it: it closes when its session
// expires, and the credentials are checked again every `sessionCheckMs` (sign-out, a
// removed user or token, a new password end it within that time).
import { ApiError, badRequest, toErrorResponse } from "../api/errors";
import { authorize } from "../api/authorize";
import { authConfig } from "../auth/config";
import { identify } from "../auth/identify";
import { identifyLive } from "../auth/sessions";
import { isShuttingDown, onShutdown } from "../shutdown";
import type { EventHub, HubEvent } from "./hub";
import { encodeComment, parseTopicFilter, type TopicFilter } from "./frames";

export const DEFAULT_HEARTBEAT_MS = 15_000;
/**
 * Frames queued for a client that does not read. Past this the client is dropped rather
 * than letting its backlog grow without bound; EventSource reconnects on its own.
 */
export const DEFAULT_MAX_QUEUED_FRAMES = 10_000;

/**
 * How long a new stream waits for the hub to be ready (bus subscription in place, first
 * snapshot taken) before it answers. The browser calls the stream live as soon as the
 * answer arrives; on a cold hub (the first client, or the first after the grace period) a
 * message published, or a worker changed, before the hub is ready would be lost although
 * the page already says "live". Redis down: the stream opens after this wait anyway (the
 * page learns of the outage from the API's 503s).
 */
export const DEFAULT_SUBSCRIBE_WAIT_MS = 5_000;

/** How often an open stream's credentials are checked again (issue 12.2: at least every 30 s). */
export const DEFAULT_SESSION_CHECK_MS = 30_000;

export interface EventsHandlerOptions {
  hub: () => EventHub;
  heartbeatMs?: number;
  maxQueuedFrames?: number;
  subscribeWaitMs?: number;
  sessionCheckMs?: number;
}

const SSE_HEADERS = {
  "Content-Type": "text/event-stream; charset=utf-8",
  // no-transform: a proxy must not compress or rewrite the stream (that buffers frames).
  "Cache-Control": "no-cache, no-transform",
  // nginx buffers proxied responses unless told not to.
  "X-Accel-Buffering": "no",
} as const;

export function createEventsHandler(options: EventsHandlerOptions): (request: Request) => Promise<Response> {
  const heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  const maxQueued = options.maxQueuedFrames ?? DEFAULT_MAX_QUEUED_FRAMES;
  const subscribeWaitMs = options.subscribeWaitMs ?? DEFAULT_SUBSCRIBE_WAIT_MS;
  const sessionCheckMs = options.sessionCheckMs ?? DEFAULT_SESSION_CHECK_MS;

  return async (request: Request): Promise<Response> => {
    if (isShuttingDown()) {
      // a stream opened now would be closed at once: send the browser elsewhere (or back later)
      return new Response(": server shutting down\n\n", { status: 503, headers: { "Retry-After": "1", "Content-Type": "text/event-stream; charset=utf-8" } });
    }
    let filter: TopicFilter;
    let hub: EventHub;
    // Where the browser left off (./replay.ts): EventSource sends the header on its own
    // reconnects; a new EventSource (another tab taking the stream over) can only use the query.
    const lastEventId = (request.headers.get("last-event-id") ?? new URL(request.url).searchParams.get("last_event_id") ?? "").slice(0, 64) || null;
    let principal: Awaited<ReturnType<typeof authorize>>;
    try {
      principal = await authorize(request, "viewer");
      // Resolved before the stream exists, so a broken configuration answers with the
      // error envelope instead of a stream that dies at once.
      hub = options.hub();
      try {
        filter = parseTopicFilter(new URL(request.url).searchParams.get("topics"));
      } catch (err) {
        throw badRequest(err instanceof Error ? err.message : "topics is not a valid list of channel globs");
      }
    } catch (err) {
      return toErrorResponse(err, "GET /events");
    }

    if (subscribeWaitMs > 0) {
      // A listener for the wait starts a cold hub; the stream's own listener (attached
      // synchronously below, within the hub's grace period) takes over from it.
      const warm = hub.attach(() => {});
      try {
        await hub.whenReady(subscribeWaitMs);
      } finally {
        warm();
      }
      if (request.signal.aborted) return new Response(null, { status: 499 });
    }

    let cleanup: () => void = () => {};
    const stream = new ReadableStream<Uint8Array>(
      {
        start(controller) {
          let closed = false;
          let detach: () => void = () => {};
          let heartbeat: ReturnType<typeof setInterval> | undefined;
          let recheck: ReturnType<typeof setInterval> | undefined;
          let expiry: ReturnType<typeof setTimeout> | undefined;
          let unregister: () => void = () => {};

          const onAbort = () => cleanup();
          cleanup = () => {
            if (closed) return;
            closed = true;
            unregister();
            if (heartbeat) clearInterval(heartbeat);
            if (recheck) clearInterval(recheck);
            if (expiry) clearTimeout(expiry);
            detach();
            request.signal.removeEventListener("abort", onAbort);
            try {
              controller.close();
            } catch {
              // already closed or errored by the consumer: nothing left to release
            }
          };

          // Never enqueue after close: it throws, and a throw inside a hub fan-out
          // would be one more thing to guard everywhere.
          const send = (chunk: Uint8Array) => {
            if (closed) return;
            if ((controller.desiredSize ?? 0) < -maxQueued) {
              cleanup();
              return;
            }
            try {
              controller.enqueue(chunk);
            } catch {
              cleanup();
            }
          };

          // A first line at once, so the client (and any proxy) sees the stream is live;
          // `retry` tells EventSource how soon to reconnect after a drop.
          send(encodeComment("connected"));
          send(new TextEncoder().encode("retry: 3000\n\n"));

          if (request.signal.aborted) {
            cleanup();
            return;
          }
          request.signal.addEventListener("abort", onAbort, { once: true });
          // SIGTERM: say so, ask EventSource to come back soon (another replica, or this one
          // restarted), and end the stream so the server can close
          unregister = onShutdown(() => {
            send(encodeComment("server shutting down"));
            send(new TextEncoder().encode("retry: 1000\n\n"));
            cleanup();
          });
          // What it missed first (or a frame saying it must refetch), then the live frames:
          // resume() attaches in the same synchronous step, so none falls in between.
          const resumed = hub.resume(lastEventId, (event: HubEvent) => {
            if (event.topic !== null && !filter(event.topic)) return;
            send(event.frame);
          });
          detach = resumed.detach;
          if (resumed.resume.mode === "replayed") {
            for (const f of resumed.resume.frames) if (f.topic === null || filter(f.topic)) send(f.frame);
          }
          send(resumed.sync);
          heartbeat = setInterval(() => send(encodeComment("heartbeat")), heartbeatMs);
          heartbeat.unref?.();

          if (principal.via !== undefined && principal.via !== "none") {
            const end = () => {
              send(encodeComment("credentials ended"));
              cleanup();
            };
            const expiresAt = sessionExpiry(request.headers);
            if (expiresAt !== null) {
              expiry = setTimeout(end, Math.min(Math.max(0, expiresAt * 1000 - Date.now()), 2 ** 31 - 1));
              expiry.unref?.();
            }
            let checking = false;
            recheck = setInterval(() => {
              if (checking || closed) return;
              checking = true;
              void stillValid(request.headers, principal.name)
                .then((ok) => {
                  if (!ok) end();
                })
                .finally(() => {
                  checking = false;
                });
            }, sessionCheckMs);
            recheck.unref?.();
          }
        },
        cancel() {
          cleanup();
        },
      },
      // Count frames, not bytes: desiredSize then says how many frames wait unread.
      { highWaterMark: 1, size: () => 1 },
    );

    return new Response(stream, { status: 200, headers: SSE_HEADERS });
  };
}

/** When the session cookie that opened a stream expires (unix seconds); null for other credentials. */
function sessionExpiry(headers: Headers): number | null {
  try {
    const id = identify(headers, Math.floor(Date.now() / 1000), authConfig());
    return id.kind === "principal" && id.sessionId !== undefined ? (id.expiresAt ?? null) : null;
  } catch {
    return null;
  }
}

/**
 * Whether the credentials that opened a stream still name the same principal. Redis
 * unreachable: yes for now (checked again next time): the stream carries only what the hub
 * reads from Redis, which is then nothing, and it still ends at the session's expiry.
 */
async function stillValid(headers: Headers, name: string): Promise<boolean> {
  try {
    const id = await identifyLive(headers, Math.floor(Date.now() / 1000), authConfig());
    return id.kind === "principal" && id.principal.name === name;
  } catch (err) {
    return err instanceof ApiError && err.code === "backend_unavailable";
  }
}
