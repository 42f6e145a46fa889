import { AuditItemSchema } from "@fleet/schema";
import { describe, expect, it } from "vitest";

import { decodeAuditEntry } from "./read";

const entry = (o: unknown) => decodeAuditEntry(Buffer.from(JSON.stringify(o)));
const good = { ts: 1, actor: "ada", role: "admin", via: "session", action: "worker.delete", target: "worker:a/1", method: "DELETE", path: "/api/v1/workers/a/1", status: 200 };

describe("decodeAuditEntry", () => {
  it("reads an entry as AuditItemSchema says, keeping members it does not know", () => {
    const item = entry({ ...good, outcome: "done", id: "x" });
    expect(AuditItemSchema.parse(item)).toEqual({ ...good, outcome: "done", id: "x" });
    expect(item.corrupt).toBeUndefined();
  });

  it("names what does not fit (an unknown outcome, a field of the wrong type) and still answers the schema", () => {
    const item = entry({ ...good, outcome: "maybe", actor: 7, details: [1] });
    expect(item.corrupt).toEqual(["actor", "details", "outcome"]);
    expect(item.outcome).toBeUndefined();
    expect(item.actor).toBeNull();
    expect(AuditItemSchema.safeParse(item).success).toBe(true);
  });

  it("shows an entry that is no JSON object as its text", () => {
    const item = decodeAuditEntry(Buffer.from("[1, 2]"));
    expect(item).toMatchObject({ raw: "[1, 2]", corrupt: ["entry"], actor: null });
    expect(AuditItemSchema.safeParse(item).success).toBe(true);
  });
});
