// A MessagePack reader for what Redis' Lua `cmsgpack.pack` writes from a flat table:
// nil, booleans, integers, doubles, strings, and arrays. Batched reads return one packed
// string per script call because decoding it here is much cheaper than letting the RESP
// parser build one reply element per value. Strings come back as views into the reply
// (no copy): Lua strings are bytes, so the caller decides how to decode them.

export type Packed = null | boolean | number | Buffer | Packed[];

export class MsgpackError extends Error {
  override readonly name = "MsgpackError";
}

/** Decodes one MessagePack value that must span the whole buffer. */
export function unpack(buf: Buffer): Packed {
  const r = new Reader(buf);
  const v = r.value();
  if (r.pos !== buf.length) throw new MsgpackError(`${buf.length - r.pos} bytes after the value`);
  return v;
}

class Reader {
  pos = 0;
  constructor(private readonly buf: Buffer) {}

  private need(n: number): number {
    const at = this.pos;
    if (at + n > this.buf.length) throw new MsgpackError("truncated");
    this.pos = at + n;
    return at;
  }

  private bytes(n: number): Buffer {
    const at = this.need(n);
    return this.buf.subarray(at, at + n);
  }

  private array(n: number): Packed[] {
    const out = new Array<Packed>(n);
    for (let i = 0; i < n; i++) out[i] = this.value();
    return out;
  }

  value(): Packed {
    const b = this.buf;
    const t = b[this.need(1)]!;
    if (t <= 0x7f) return t;
    if (t >= 0xe0) return t - 0x100;
    if (t >= 0xa0 && t <= 0xbf) return this.bytes(t & 0x1f);
    if (t >= 0x90 && t <= 0x9f) return this.array(t & 0x0f);
    switch (t) {
      case 0xc0:
        return null;
      case 0xc2:
        return false;
      case 0xc3:
        return true;
      case 0xc4:
      case 0xd9:
        return this.bytes(b.readUInt8(this.need(1)));
      case 0xc5:
      case 0xda:
        return this.bytes(b.readUInt16BE(this.need(2)));
      case 0xc6:
      case 0xdb:
        return this.bytes(b.readUInt32BE(this.need(4)));
      case 0xca:
        return b.readFloatBE(this.need(4));
      case 0xcb:
        return b.readDoubleBE(this.need(8));
      case 0xcc:
        return b.readUInt8(this.need(1));
      case 0xcd:
        return b.readUInt16BE(this.need(2));
      case 0xce:
        return b.readUInt32BE(this.need(4));
      case 0xcf:
        return Number(b.readBigUInt64BE(this.need(8)));
      case 0xd0:
        return b.readInt8(this.need(1));
      case 0xd1:
        return b.readInt16BE(this.need(2));
      case 0xd2:
        return b.readInt32BE(this.need(4));
      case 0xd3:
        return Number(b.readBigInt64BE(this.need(8)));
      case 0xdc:
        return this.array(b.readUInt16BE(this.need(2)));
      case 0xdd:
        return this.array(b.readUInt32BE(this.need(4)));
      default:
        throw new MsgpackError(`unsupported type byte 0x${t.toString(16)}`);
    }
  }
}
