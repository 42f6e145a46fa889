import { describe, expect, it } from "vitest";

import { parseMonitorArgs } from "./monitor";

describe("MONITOR lines", () => {
  it("are split into their quoted arguments, escapes undone", () => {
    expect(parseMonitorArgs('"SET" "fleet:kv:ns:k" "a \\"quoted\\" \\\\ value\\x00\\n"')).toEqual(["SET", "fleet:kv:ns:k", 'a "quoted" \\ value\u0000\n']);
    expect(parseMonitorArgs('"PING"')).toEqual(["PING"]);
    expect(parseMonitorArgs('"evalsha" "abc" "1" ""')).toEqual(["evalsha", "abc", "1", ""]);
  });
});
