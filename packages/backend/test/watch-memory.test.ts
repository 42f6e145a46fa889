import { createMemoryBackend } from "../src/memory";
import type { RawPlanter } from "./contract";
import { describeWatchContract } from "./contract-watch";

describeWatchContract("memory", async () => {
  const backend = createMemoryBackend();
  const r = backend.raw;
  // the reads and writes the watch suite uses
  const plantRaw = {
    rpush: async (key: string, ...values: Array<string | Buffer>) => void r.rpush(key, ...values),
    type: async (key: string) => r.type(key),
    pttl: async (key: string) => r.pttl(key),
    keys: async () => r.keys(),
  } as unknown as RawPlanter;
  return { backend, plantRaw, cleanup: () => backend.close() };
});
