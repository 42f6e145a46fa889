import "server-only";

import { BackendUnavailableError, type Backend, type HealthInfo } from "@fleet/backend";

import { getBackend } from "./backend";
import { serverEnv } from "./env";
import { withTimeout } from "./timeout";

// A backstop: the Redis backend already fails within its 1500 ms connect and command
// timeouts (with the better message); this bounds whatever else might hang, and keeps
// the check under the 2 s a load balancer's probe typically allows.
export const HEALTH_TIMEOUT_MS = 1750;

/**
 * What an outage answers. The health check is open to anybody (load balancers), so it says
 * nothing about the infrastructure: no URL, host, port or user. The detail (URL with the
 * password masked, and why) goes to the server log.
 */
export const HEALTH_UNAVAILABLE_MESSAGE = "The backend (Redis) is unavailable; the console's server log says why.";

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
