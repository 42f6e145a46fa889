import "server-only";

import { BackendUnavailableError, type Backend, type HealthInfo } from "@fleet/backend";

import { getBackend } from "./backend";
import { serverEnv } from "./env";
import { withTimeout } from "./timeout";

// A backstop: the Redis backend already fails within its 1500 ms connect and command
// timeouts (with the better message); this bounds whatever else might hang, and keeps
// the check under the 2 s a load balancer's probe typically allows.
export const HEALTH_TIMEOUT_MS = 1750;

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
