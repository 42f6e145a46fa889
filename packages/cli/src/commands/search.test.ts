// fleet search --task-id: the filter a task id becomes.
import { describe, expect, it } from "vitest";

import { taskIdFilter } from "./search";

describe("search", () => {
  it("a task id is its text or the number it reads as", () => {
    expect(taskIdFilter("abc")).toBe('id = "abc"');
    expect(taskIdFilter("42")).toBe('(id = "42" or id = 42)');
    expect(taskIdFilter('a"b')).toBe('id = "a\\"b"');
  });
});
