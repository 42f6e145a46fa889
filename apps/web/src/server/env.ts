// The one place that reads process.env for the server. Parsed once, on first use, so a
// bad value fails loudly with the variable's name instead of deep inside a request.
import { z } from "zod";

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

export const ServerEnvSchema = z.object({
  FLEET_BACKEND_URL: z
    .string()
    .trim()
    .min(1)
    .default("memory://demo")
    .refine((url) => /^(redis|rediss|memory):\/\//i.test(url), {
      message: "must start with redis://, rediss:// or memory://",
    }),
  FLEET_OFFLINE_AFTER_SECONDS: positiveInt(60),
  FLEET_EVENTS_INTERVAL_MS: positiveInt(1000),
});

export type ServerEnv = z.infer<typeof ServerEnvSchema>;

/** Empty strings count as unset, so `FLEET_X= pnpm start` falls back to the default. */
function withoutEmpty(source: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(source)) if (v !== undefined && v !== "") out[k] = v;
  return out;
}

export function parseServerEnv(source: Record<string, string | undefined>): ServerEnv {
  const result = ServerEnvSchema.safeParse(withoutEmpty(source));
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`invalid server environment: ${problems}`);
  }
  return result.data;
}

let cached: ServerEnv | undefined;

export function serverEnv(): ServerEnv {
  cached ??= parseServerEnv(process.env);
  return cached;
}

/** Forgets the parsed environment so the next `serverEnv()` reads process.env again (tests). */
export function resetServerEnv(): void {
  cached = undefined;
}
