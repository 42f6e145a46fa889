import { describe, expect, it } from "vitest";
import { csrfProblem } from "./csrf";

describe("the cross-site check", () => {
  const req = (headers: Record<string, string>) => new Request("http://console.test/api/v1/counters/x", { method: "PUT", headers: { host: "console.test", ...headers } });

  it("passes the console's own fetch and refuses everything else", () => {
    expect(csrfProblem(req({ origin: "http://console.test", "sec-fetch-site": "same-origin", "x-fleet-csrf": "1" }))).toBeNull();
    expect(csrfProblem(req({ origin: "http://console.test", "x-fleet-csrf": "1" }))).toBeNull();
    expect(csrfProblem(req({ origin: "http://console.test.evil", "x-fleet-csrf": "1" }))).toMatch(/another origin/);
    expect(csrfProblem(req({ origin: "https://console.test", "x-fleet-csrf": "1" }))).toMatch(/another origin/);
    expect(csrfProblem(req({ "sec-fetch-site": "same-site", origin: "http://console.test", "x-fleet-csrf": "1" }))).toMatch(/another site/);
    expect(csrfProblem(req({ "sec-fetch-site": "none", "x-fleet-csrf": "1" }))).toMatch(/another site/);
    expect(csrfProblem(req({ "x-fleet-csrf": "1" }))).toMatch(/no origin/);
    expect(csrfProblem(req({ origin: "http://console.test", "x-fleet-csrf": "0" }))).toMatch(/x-fleet-csrf/);
  });
});
