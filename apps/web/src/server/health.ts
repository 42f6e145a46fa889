import "server-only";

import { BackendUnavailableError, type Backend, type HealthInfo } from "@fleet/backend";

import { getBackend } from "./backend";
import { serverEnv } from "./env";
import { withTimeout } from "./timeout";

// A health check must answer promptly even when Redis hangs instead of refusing.
export const HEALTH_TIMEOUT_MS = 1500;

/** The backend and its health, or BackendUnavailableError within HEALTH_TIMEOUT_MS. */
export async function checkBackend(): Promise<{ backend: Backend; info: HealthInfo }> {
  const check = async () => {
    const backend = await getBackend();
    return { backend, info: await backend.health() };
  };
  return withTimeout(check(), HEALTH_TIMEOUT_MS, () => {
    return new BackendUnavailableError(serverEnv().FLEET_BACKEND_URL, `no answer within ${HEALTH_TIMEOUT_MS} ms`);
  });
}
