// Commands whose RESP bytes are written straight into one buffer, for the batched worker
// reads that send six keys per worker. ioredis encodes each argument on its own: it copies
// the argument list, measures every string's UTF-8 length (flattening each key built by
// concatenation), concatenates five pieces per argument and keeps every key alive until
// the reply; on 10,000 workers the scavenges copying all that outweighed the encoding
// itself. Here the strings of one worker die as soon as they are written, and the bytes
// live outside the JS heap. Replies come back as Buffers, as with ioredis' `...Buffer` methods.
import { Command } from "ioredis";

/** RESP bulk-string arguments, written as they are added. */
export class RespArgs {
  count = 0;
  private buf: Buffer;
  private length = 0;

  /** `capacity`: the bytes expected, so that the buffer rarely has to grow. */
  constructor(capacity = 16 * 1024) {
    this.buf = Buffer.allocUnsafe(capacity);
  }

  add(arg: string): this {
    return this.addEncoded(`$${Buffer.byteLength(arg)}\r\n${arg}\r\n`, 1);
  }

  /**
   * Appends `text`, which must already hold `n` whole bulk strings (`$<bytes>\r\n<arg>\r\n`);
   * one call per worker rather than per key keeps the calls into Buffer#write few.
   */
  addEncoded(text: string, n: number): this {
    // at most 3 UTF-8 bytes per UTF-16 unit: room enough before writing
    const room = this.length + 3 * text.length;
    if (room > this.buf.length) {
      const bigger = Buffer.allocUnsafe(Math.max(room, 2 * this.buf.length));
      this.buf.copy(bigger, 0, 0, this.length);
      this.buf = bigger;
    }
    this.length += this.buf.write(text, this.length);
    this.count += n;
    return this;
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
