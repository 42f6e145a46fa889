import { SubmitTasksResultSchema } from "@fleet/schema";

import { route } from "@/server/api/route";
import { submitTasks } from "@/server/api/tasks";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const POST = route({
  path: "/automations/[type]/tasks",
  role: "operator",
  body: "json",
  status: 201,
  response: SubmitTasksResultSchema,
  handler: ({ backend, params, body }) => submitTasks(backend, params.type, body),
});
