import { describe, expect, it } from "vitest";
import { createMemoryBackend } from "./memory";
import { installOperations } from "./shared";

describe("installOperations", () => {
  it("makes each operation a method of the class that calls the instance's own", async () => {
    class Host {
      constructor(readonly n: number) {
        installOperations(Host.prototype, this, { twice: async (x: number) => x * 2 * this.n, name: () => `host ${this.n}` });
      }
    }
    const one = new Host(1) as Host & { twice(x: number): Promise<number>; name(): string };
    const ten = new Host(10) as typeof one;
    expect(await one.twice(3)).toBe(6);
    expect(await ten.twice(3)).toBe(60);
    expect(Object.keys(one)).toEqual(["n"]);
    expect(Object.hasOwn(Host.prototype, "twice")).toBe(true);
  });

  it("lets a caller replace a backend's method on the instance and delete it again", async () => {
    const be = createMemoryBackend();
    const real = be.queueSize.bind(be);
    be.queueSize = async () => 42;
    expect(await be.queueSize("q")).toBe(42);
    expect(await createMemoryBackend().queueSize("q")).toBe(0);
    delete (be as Partial<typeof be>).queueSize;
    expect(await be.queueSize("q")).toBe(0);
    expect(await real("q")).toBe(0);
    await be.close();
  });
});
