// POST /automations/{type}/tasks: one task or a batch of up to 1000, every payload
// checked against the catalog's `task_payload` schema, then pushed in one MULTI so a
// batch lands whole or not at all.
import { randomBytes } from "node:crypto";

import { isJsonObject, pyJsonBytes, queueNameProblem, type Backend } from "@fleet/backend";
import { TaskSubmissionSchema, type ErrorDetail, type Priority, type SubmitTasksResult } from "@fleet/schema";
import { z } from "zod";

import { catalogValidator, checkEach } from "./catalog-validation";
import { badRequest, notFound, validationFailed, zodDetails } from "./errors";
import { announceAdmin, isKnownAutomation } from "./resources";
import { isEmptyQueue, toQueue } from "./serialize";

export const MAX_TASKS_PER_REQUEST = 1000;

const BatchSchema = z.strictObject({
  tasks: z.array(TaskSubmissionSchema).min(1, "give at least one task"),
});

export interface TaskToPush {
  payload: Record<string, unknown>;
  priority: Priority;
}

/** The body as a list of tasks and the JSON Pointer prefix of each payload. */
export function parseSubmission(body: unknown): Array<TaskToPush & { at: string }> {
  if (isJsonObject(body) && "tasks" in body) {
    if (Array.isArray(body.tasks) && body.tasks.length > MAX_TASKS_PER_REQUEST) {
      throw badRequest(`A request may submit at most ${MAX_TASKS_PER_REQUEST} tasks; this one has ${body.tasks.length}. Split it.`);
    }
    const parsed = BatchSchema.safeParse(body);
    if (!parsed.success) {
      const details = zodDetails(parsed.error);
      throw validationFailed(`The batch is invalid: ${details.length} problem${details.length > 1 ? "s" : ""}, listed in details.`, details);
    }
    return parsed.data.tasks.map((t, i) => ({ ...t, at: `/tasks/${i}/payload` }));
  }
  const parsed = TaskSubmissionSchema.safeParse(body);
  if (!parsed.success) {
    const details = zodDetails(parsed.error);
    throw validationFailed(`The task is invalid: give {"payload": {...}, "priority": "high"|"normal"|"low"} or {"tasks": [...]}.`, details);
  }
  return [{ ...parsed.data, at: "/payload" }];
}

export function newTaskId(): string {
  return randomBytes(16).toString("hex");
}

export async function submitTasks(backend: Backend, automationType: string, body: unknown): Promise<SubmitTasksResult> {
  // The type names the queue the tasks go to: `x:dead` or `x:high` would be queue x's lists.
  const problem = queueNameProblem(automationType);
  if (problem !== null) throw notFound(`Tasks cannot be submitted to '${automationType}': ${problem}.`);
  const tasks = parseSubmission(body);
  const [catalog, known, depths] = await Promise.all([backend.catalogGet(automationType), isKnownAutomation(backend, automationType), backend.queueDepths([automationType])]);
  const queueExists = depths[0] !== undefined && !isEmptyQueue(toQueue(depths[0]));
  if (!known && !queueExists) {
    throw notFound(`There is no automation '${automationType}' (no catalog entry, no worker, no queue) to submit tasks to.`);
  }
  const validate = catalogValidator(automationType, catalog, "task_payload");
  const details: ErrorDetail[] = checkEach(
    validate,
    tasks.map((t) => ({ value: t.payload, prefix: t.at })),
  ).flat();
  if (details.length > 0) {
    throw validationFailed(
      `${details.length} problem${details.length > 1 ? "s" : ""} with the task payload against the '${automationType}' task_payload schema, listed in details.`,
      details,
    );
  }
  const ids = tasks.map(() => newTaskId());
  await backend.queuePushMany(
    automationType,
    tasks.map((t, i) => ({ body: pyJsonBytes({ id: ids[i], payload: t.payload }), priority: t.priority })),
  );
  await announceAdmin(backend, "tasks.submit", { automation_type: automationType, queue: automationType, ids });
  return { ids };
}
