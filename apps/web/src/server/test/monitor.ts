// MONITOR over a plain socket, for tests that count the commands a request sends.
// ioredis' monitor() can take a monitored line for a reply when it arrives in the same
// chunk as MONITOR's +OK ("Command queue state error", seen under load), so this speaks the
// few lines of RESP that MONITOR needs itself.
import { createConnection, type Socket } from "node:net";

export interface MonitoredCommand {
  db: number;
  /** The command name lower-cased, then its arguments as Redis printed them (unescaped). */
  args: string[];
}

export interface Monitor {
  readonly seen: MonitoredCommand[];
  close(): void;
}

/** Parses `"set" "k" "a\"b\x00"` (MONITOR's quoting) into its arguments. */
export function parseMonitorArgs(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] !== '"') {
      i++;
      continue;
    }
    i++;
    let s = "";
    while (i < text.length && text[i] !== '"') {
      const c = text[i]!;
      if (c === "\\" && i + 1 < text.length) {
        const n = text[i + 1]!;
        if (n === "x" && i + 3 < text.length) {
          s += String.fromCharCode(parseInt(text.slice(i + 2, i + 4), 16));
          i += 4;
          continue;
        }
        s += n === "n" ? "\n" : n === "r" ? "\r" : n === "t" ? "\t" : n === "a" ? "\x07" : n === "b" ? "\b" : n;
        i += 2;
        continue;
      }
      s += c;
      i++;
    }
    out.push(s);
    i++;
  }
  return out;
}

/** Starts MONITOR on the Redis of `url` (any db: every line names its own); resolves once it is on. */
export function startMonitor(url: string, onCommand?: (c: MonitoredCommand) => void): Promise<Monitor> {
  const u = new URL(url);
  const socket: Socket = createConnection({ host: u.hostname, port: Number(u.port || 6379) });
  const seen: MonitoredCommand[] = [];
  let buffered = "";
  let on = false;
  // AUTH (when the URL has a password) answers +OK first, then MONITOR does
  let oksToCome = u.password ? 2 : 1;
  return new Promise<Monitor>((resolve, reject) => {
    socket.once("error", reject);
    socket.on("connect", () => {
      const auth = u.password ? `AUTH ${decodeURIComponent(u.password)}\r\n` : "";
      socket.write(`${auth}MONITOR\r\n`);
    });
    socket.on("data", (chunk: Buffer) => {
      buffered += chunk.toString("latin1");
      let nl: number;
      while ((nl = buffered.indexOf("\r\n")) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 2);
        if (!on) {
          if (line === "+OK" && --oksToCome === 0) {
            on = true;
            resolve({ seen, close: () => socket.destroy() });
          } else if (line.startsWith("-")) reject(new Error(`MONITOR refused: ${line}`));
          continue;
        }
        const m = /^\+\d+\.\d+ \[(\d+) [^\]]*\] (.*)$/.exec(line);
        if (!m) continue;
        const args = parseMonitorArgs(m[2]!);
        if (args.length === 0) continue;
        const c = { db: Number(m[1]), args: [args[0]!.toLowerCase(), ...args.slice(1)] };
        seen.push(c);
        onCommand?.(c);
      }
    });
  });
}
