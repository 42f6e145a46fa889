import { describe, expect, it } from "vitest";
import { normalizeAddress, peerAddress, peerHeaderValue, PEER_HEADER } from "./peer";

describe("the peer address stamp", () => {
  it("vouches only for values made with this process's key", () => {
    expect(peerAddress(new Headers({ [PEER_HEADER]: peerHeaderValue("::ffff:10.0.0.1") }))).toBe("10.0.0.1");
    expect(peerAddress(new Headers({ [PEER_HEADER]: "guess 10.0.0.1" }))).toBeNull();
    expect(peerAddress(new Headers({ "x-forwarded-for": "10.0.0.1" }))).toBeNull();
    expect(peerAddress(new Headers({ [PEER_HEADER]: peerHeaderValue("not-an-ip") }))).toBeNull();
    expect(normalizeAddress(" 192.0.2.1 ")).toBe("192.0.2.1");
  });
});
