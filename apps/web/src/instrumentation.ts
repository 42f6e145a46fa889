// Runs once when the server starts: a bad FLEET_* value stops it here, with the variable's
// name, instead of failing every request later.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { serverEnv } = await import("./server/env");
  const { maskUrl } = await import("@fleet/backend");
  console.log(`Fleet Console backend: ${maskUrl(serverEnv().FLEET_BACKEND_URL)}`);
}
