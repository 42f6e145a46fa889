import { describe, expect, it } from "vitest";

import { base64ToBytes, classifyRaw, hexDump } from "./raw-value";

const raw = (json: unknown, text: string | null) => ({
  json,
  text,
  base64: Buffer.from(text ?? "\xff").toString("base64"),
  bytes: 1,
});

describe("classifyRaw", () => {
  it("tells JSON (a literal null included), other text and bytes apart", () => {
    expect(classifyRaw(raw({ a: 1 }, '{"a": 1}'))).toBe("json");
    expect(classifyRaw(raw(null, "null"))).toBe("json");
    expect(classifyRaw(raw(null, "<img src=x>"))).toBe("text");
    expect(classifyRaw(raw(null, null))).toBe("binary");
  });
});

describe("hexDump", () => {
  it("prints offset, hex bytes and printable ASCII", () => {
    const bytes = base64ToBytes(Buffer.from([0x41, 0x00, 0xff, 0x7a]).toString("base64"));
    expect(hexDump(bytes)).toBe(`00000000  41 00 ff 7a${" ".repeat(47 - 11)}  A..z`);
  });
  it("says how many bytes it left out", () => {
    expect(hexDump(new Uint8Array(40), 16).split("\n").at(-1)).toBe("… 24 more bytes");
  });
});
