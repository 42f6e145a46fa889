// The MessagePack reader against what Redis' own cmsgpack writes (every width of string
// and integer it can choose), plus malformed input.
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { testRedisUrl } from "../../test/support/redis-dbs";
import { MsgpackError, unpack } from "./msgpack";

// EVAL only, in its own database
const raw = new Redis(testRedisUrl("packages/backend/src/redis/msgpack.test.ts"));

afterAll(() => raw.disconnect());

/** cmsgpack.pack of the Lua expression, as the bytes Redis returns. */
async function packed(luaExpr: string, ...argv: Array<string | Buffer>): Promise<Buffer> {
  return (await raw.callBuffer("EVAL", `return cmsgpack.pack(${luaExpr})`, 0, ...argv)) as Buffer;
}

describe("msgpack unpack", () => {
  it("reads strings of every length class as views of the exact bytes", async () => {
    const strs = [
      Buffer.alloc(0),
      Buffer.from("RUNNING"),
      Buffer.alloc(31, 0x61),
      Buffer.alloc(32, 0x62),
      Buffer.alloc(255, 0x63),
      Buffer.alloc(256, 0x64),
      Buffer.alloc(65535, 0x65),
      Buffer.alloc(65536, 0x66),
      Buffer.from([0xff, 0x00, 0xc0, 0xd9]),
    ];
    const got = unpack(await packed("ARGV", ...strs));
    expect(got).toEqual(strs);
  });

  it("reads false, integers of every width and doubles", async () => {
    const got = unpack(
      await packed(
        "{false, true, 0, 1, 127, 128, 255, 256, 65535, 65536, 4294967295, 4294967296, -1, -32, -33, -128, -129, -32768, -32769, -2147483648, -2147483649, 1.5, -0.25, 1700000000.5}",
      ),
    );
    expect(got).toEqual([
      false,
      true,
      0,
      1,
      127,
      128,
      255,
      256,
      65535,
      65536,
      4294967295,
      4294967296,
      -1,
      -32,
      -33,
      -128,
      -129,
      -32768,
      -32769,
      -2147483648,
      -2147483649,
      1.5,
      -0.25,
      1700000000.5,
    ]);
  });

  it("reads arrays longer than 15 and 65535 entries, and nested arrays", async () => {
    expect(unpack(await packed("(function() local t = {} for i = 1, 70000 do t[i] = i % 7 end return t end)()"))).toEqual(Array.from({ length: 70000 }, (_, i) => (i + 1) % 7));
    expect(unpack(await packed("{{1, {2}}, {}}"))).toEqual([[1, [2]], []]);
  });

  it("rejects truncated input, trailing bytes and types it does not read", () => {
    expect(() => unpack(Buffer.from([0x92, 0x01]))).toThrow(MsgpackError);
    expect(() => unpack(Buffer.from([0xa3, 0x61]))).toThrow(MsgpackError);
    expect(() => unpack(Buffer.from([0x01, 0x02]))).toThrow(MsgpackError);
    expect(() => unpack(Buffer.from([0x81, 0x01, 0x02]))).toThrow(/0x81/);
    expect(() => unpack(Buffer.alloc(0))).toThrow(MsgpackError);
  });
});
