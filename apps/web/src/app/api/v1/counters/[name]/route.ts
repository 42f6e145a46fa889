import { CounterBodySchema, CounterSchema, DeletedSchema } from "@fleet/schema";

import { notFound } from "@/server/api/errors";
import { announceAdmin } from "@/server/api/resources";
import { route } from "@/server/api/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Body `{"value": int}`; answers the counter as it now stands. */
export const PUT = route({
  path: "/counters/[name]",
  role: "admin",
  body: CounterBodySchema,
  response: CounterSchema,
  handler: async ({ backend, params, body }) => {
    await backend.counterSet(params.name, body.value);
    await announceAdmin(backend, "counter.set", { counter: params.name, value: body.value });
    return { name: params.name, value: body.value };
  },
});

export const DELETE = route({
  path: "/counters/[name]",
  role: "admin",
  response: DeletedSchema,
  handler: async ({ backend, params }) => {
    const deleted = await backend.counterDel(params.name);
    if (!deleted) throw notFound(`There is no counter named '${params.name}'.`);
    await announceAdmin(backend, "counter.delete", { counter: params.name });
    return { deleted: true };
  },
});
