import { DeletedSchema } from "@fleet/schema";

import { notFound } from "@/server/api/errors";
import { announceAdmin } from "@/server/api/resources";
import { route } from "@/server/api/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Force-release: deletes the lock whoever holds it. */
export const DELETE = route({
  path: "/locks/[name]",
  role: "admin",
  response: DeletedSchema,
  handler: async ({ backend, params }) => {
    const released = await backend.lockForceRelease(params.name);
    if (!released) throw notFound(`There is no lock named '${params.name}' (it may have expired).`);
    await announceAdmin(backend, "lock.release", { lock: params.name });
    return { deleted: true };
  },
});
