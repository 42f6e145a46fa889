// Commands whose RESP bytes are written straight into one buffer, for the batched worker
// reads that send six keys per worker. ioredis encodes each argument on its own: it copies
// the argument list, measures every string's UTF-8 length (flattening each key built by
// concatenation), concatenates five pieces per argument and keeps every key alive until
// the reply. On 10,000 workers that made some 20 MB of short-lived strings per read, and
// the scavenges they caused copied everything else alive at the time. Here a worker's keys
// are copied byte by byte around its id, encoded once: no string per key at all, and the
// bytes live outside the JS heap. Replies come back as Buffers, as with ioredis'
// `...Buffer` methods.
import { Command } from "ioredis";

/** The bytes around the id in a key name: `keyOf(id)` is `prefix + id + suffix`. */
export interface KeyAround {
  prefix: Buffer;
  suffix: Buffer;
}

/** Finds the fixed parts of `keyOf` (from two probes) so that keys can be written without building them. */
export function keyAround(keyOf: (id: string) => string): KeyAround {
  const a = keyOf("a");
  const b = keyOf("bb");
  let p = 0;
  while (p < a.length && a[p] === b[p]) p++;
  let s = 0;
  while (s < a.length - p && a[a.length - 1 - s] === b[b.length - 1 - s]) s++;
  if (p + 1 + s !== a.length || p + 2 + s !== b.length) throw new TypeError(`key names are not prefix + id + suffix: ${a}`);
  return { prefix: Buffer.from(a.slice(0, p), "utf8"), suffix: Buffer.from(a.slice(a.length - s), "utf8") };
}

function copyBytes(from: Buffer, to: Buffer, at: number, n: number): number {
  // short runs: a loop beats a call into native code
  for (let i = 0; i < n; i++) to[at + i] = from[i]!;
  return at + n;
}

function writeDecimal(to: Buffer, at: number, n: number): number {
  let digits = 1;
  for (let x = n; x >= 10; x = Math.floor(x / 10)) digits++;
  for (let i = digits - 1, x = n; i >= 0; i--, x = Math.floor(x / 10)) to[at + i] = 48 + (x % 10);
  return at + digits;
}

/** RESP bulk-string arguments, written as they are added. */
export class RespArgs {
  count = 0;
  private buf: Buffer;
  private length = 0;

  /** `capacity`: the bytes expected, so that the buffer rarely has to grow. */
  constructor(capacity = 16 * 1024) {
    this.buf = Buffer.allocUnsafe(capacity);
  }

  private scratch = Buffer.allocUnsafe(256);

  /** For one id, the key `prefix + id + suffix` of each entry of `keys`, in order. */
  addKeys(id: string, keys: readonly KeyAround[]): this {
    if (this.scratch.length < 3 * id.length) this.scratch = Buffer.allocUnsafe(3 * id.length);
    const idBytes = this.scratch.write(id);
    let room = 0;
    for (const k of keys) room += k.prefix.length + idBytes + k.suffix.length + 16;
    this.ensure(room);
    const buf = this.buf;
    let o = this.length;
    for (const k of keys) {
      buf[o++] = 0x24; // $
      o = writeDecimal(buf, o, k.prefix.length + idBytes + k.suffix.length);
      buf[o++] = 0x0d;
      buf[o++] = 0x0a;
      o = copyBytes(k.prefix, buf, o, k.prefix.length);
      o = copyBytes(this.scratch, buf, o, idBytes);
      o = copyBytes(k.suffix, buf, o, k.suffix.length);
      buf[o++] = 0x0d;
      buf[o++] = 0x0a;
    }
    this.length = o;
    this.count += keys.length;
    return this;
  }

  add(arg: string): this {
    return this.addEncoded(`$${Buffer.byteLength(arg)}\r\n${arg}\r\n`, 1);
  }

  /**
   * Appends `text`, which must already hold `n` whole bulk strings (`$<bytes>\r\n<arg>\r\n`);
   * one call per worker rather than per key keeps the calls into Buffer#write few.
   */
  addEncoded(text: string, n: number): this {
    // at most 3 UTF-8 bytes per UTF-16 unit
    this.ensure(3 * text.length);
    this.length += this.buf.write(text, this.length);
    this.count += n;
    return this;
  }

  private ensure(bytes: number): void {
    const room = this.length + bytes;
    if (room <= this.buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(room, 2 * this.buf.length));
    this.buf.copy(bigger, 0, 0, this.length);
    this.buf = bigger;
  }

  bytes(): Buffer {
    return this.buf.subarray(0, this.length);
  }
}

export class EncodedCommand extends Command {
  private readonly encoded: Buffer;

  constructor(name: string, args: RespArgs) {
    // no arguments for ioredis to look at: they are already encoded below
    super(name, [], { replyEncoding: null });
    this.encoded = Buffer.concat([Buffer.from(`*${args.count + 1}\r\n$${Buffer.byteLength(name)}\r\n${name}\r\n`), args.bytes()]);
  }

  override toWritable(): Buffer {
    return this.encoded;
  }
}
