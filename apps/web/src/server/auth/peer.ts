// The address of the machine that opened the TCP connection. Next's route handlers and
// proxy see only a Request, and Next fills `x-forwarded-for` only when the client did
// not send one, so anybody can claim any address there. Trusted-proxy headers and the
// sign-in backoff need the real peer, so `installPeerStamp()` (called once from
// instrumentation.ts) stamps every incoming request with it, under a header whose value
// carries a per-process random key: a client cannot forge it, and a request that did not
// pass the stamp (a test calling a handler, a custom server) has no known peer.
import { randomBytes } from "node:crypto";
import http from "node:http";
import https from "node:https";
import { isIP } from "node:net";

export const PEER_HEADER = "x-fleet-peer";

const KEY_SYMBOL = Symbol.for("fleet.console.peerKey");
const INSTALLED_SYMBOL = Symbol.for("fleet.console.peerStampInstalled");

type Globals = { [KEY_SYMBOL]?: string; [INSTALLED_SYMBOL]?: boolean };
const g = globalThis as Globals;

/** One key per process, shared by every bundle (instrumentation, proxy, route handlers). */
function peerKey(): string {
  g[KEY_SYMBOL] ??= randomBytes(18).toString("base64url");
  return g[KEY_SYMBOL];
}

/** The header value that vouches for `address` in this process (the stamp; tests). */
export function peerHeaderValue(address: string): string {
  return `${peerKey()} ${address}`;
}

/** `::ffff:10.0.0.1` is the IPv4 address 10.0.0.1 reaching an IPv6 socket. */
export function normalizeAddress(address: string): string {
  const a = address.trim();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(a);
  return mapped ? mapped[1]! : a;
}

/** The stamped peer address, or null when the request was not stamped by this process. */
export function peerAddress(headers: Headers): string | null {
  const v = headers.get(PEER_HEADER);
  if (!v) return null;
  const space = v.indexOf(" ");
  if (space < 0 || v.slice(0, space) !== peerKey()) return null;
  const addr = normalizeAddress(v.slice(space + 1));
  return isIP(addr) ? addr : null;
}

export function installPeerStamp(): void {
  if (g[INSTALLED_SYMBOL]) return;
  g[INSTALLED_SYMBOL] = true;
  const key = peerKey();
  for (const Server of [http.Server, https.Server]) {
    const proto = Server.prototype as unknown as { emit: (event: string | symbol, ...args: unknown[]) => boolean };
    const original = proto.emit;
    proto.emit = function stampPeer(this: unknown, event: string | symbol, ...args: unknown[]): boolean {
      if (event === "request") {
        const req = args[0] as http.IncomingMessage | undefined;
        // overwritten unconditionally: whatever the client sent under this name is gone
        if (req?.headers) req.headers[PEER_HEADER] = `${key} ${req.socket?.remoteAddress ?? ""}`;
      }
      return original.call(this, event, ...args);
    };
  }
}
