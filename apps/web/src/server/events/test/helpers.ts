// Shared by the event hub tests: waiting for conditions and reading SSE frames.
// A generous default: CI machines have two cores, and a loaded one can take seconds per hub tick.
import type { Backend, Subscription } from "@fleet/backend";

export async function waitFor<T>(
  probe: () => T | Promise<T>,
  { timeoutMs = 15_000, stepMs = 10, what = "condition" }: { timeoutMs?: number; stepMs?: number; what?: string } = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export interface ParsedFrame {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
  retry?: string;
}

/** Reads an SSE body as it arrives and splits it into frames (comments included). */
export class SseReader {
  readonly frames: ParsedFrame[] = [];
  private buffer = "";
  private readonly decoder = new TextDecoder();
  private done = false;
  readonly finished: Promise<void>;

  constructor(body: ReadableStream<Uint8Array>) {
    const reader = body.getReader();
    this.finished = (async () => {
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          this.push(this.decoder.decode(value, { stream: true }));
        }
      } catch {
        // an aborted request errors the read: the stream is over either way
      } finally {
        this.done = true;
      }
    })();
  }

  get isDone(): boolean {
    return this.done;
  }

  events(name?: string): ParsedFrame[] {
    return this.frames.filter((f) => f.event !== undefined && (name === undefined || f.event === name));
  }

  data<T = any>(name: string): T[] {
    return this.events(name).map((f) => JSON.parse(f.data ?? "null") as T);
  }

  private push(chunk: string): void {
    this.buffer += chunk;
    let at: number;
    while ((at = this.buffer.indexOf("\n\n")) >= 0) {
      const block = this.buffer.slice(0, at);
      this.buffer = this.buffer.slice(at + 2);
      const frame: ParsedFrame = {};
      for (const line of block.split("\n")) {
        if (line.startsWith(":")) frame.comment = line.slice(1).trim();
        else {
          const i = line.indexOf(":");
          const field = line.slice(0, i) as keyof ParsedFrame;
          const value = line.slice(i + 1).replace(/^ /, "");
          frame[field] = frame[field] === undefined || field !== "data" ? value : `${frame[field]}\n${value}`;
        }
      }
      this.frames.push(frame);
    }
  }
}

/**
 * The same backend, with a count of the bus subscriptions it holds open. Instrumentation,
 * not a stand-in: every call goes to the real backend.
 */
export function countingSubscriptions<B extends Backend>(backend: B): { backend: B; open: () => number; opened: () => number } {
  let open = 0;
  let opened = 0;
  const wrapped = new Proxy(backend, {
    get(target, prop, receiver) {
      if (prop === "subscribeEvents") {
        return async (onMessage: Parameters<Backend["subscribeEvents"]>[0]): Promise<Subscription> => {
          const sub = await target.subscribeEvents(onMessage);
          open++;
          opened++;
          let closed = false;
          return {
            close: async () => {
              if (!closed) {
                closed = true;
                open--;
              }
              await sub.close();
            },
          };
        };
      }
      const v = Reflect.get(target, prop, receiver) as unknown;
      return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return { backend: wrapped, open: () => open, opened: () => opened };
}
