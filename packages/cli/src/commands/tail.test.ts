import { describe, expect, it } from "vitest";
import { sseFrames } from "./tail";

function streamOf(chunks: string[]): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  return new ReadableStream({
    start(c) {
      for (const ch of chunks) c.enqueue(enc.encode(ch));
      c.close();
    },
  });
}

describe("sseFrames", () => {
  it("splits frames across chunk boundaries, joins multi-line data, drops comments, takes CRLF", async () => {
    const frames = [];
    for await (const f of sseFrames(streamOf([": hello\n\nid: 1\nevent: bus\nda", 'ta: {"a":\ndata: 1}\n\n', "id: 2\r\nevent: workers\r\ndata: {}\r\n\r\n", ": heartbeat\n\n"])))
      frames.push(f);
    expect(frames).toEqual([
      { id: "1", event: "bus", data: '{"a":\n1}' },
      { id: "2", event: "workers", data: "{}" },
    ]);
  });
});
