// In a browser, zod must not compile parsers with `new Function`: the console's page CSP has
// no 'unsafe-eval', and even zod's probe for it (a caught `new Function("")`, made when the
// first object schema is created) is reported as a securitypolicyviolation. So before any
// schema of this package exists, a browser gets zod's jitless mode (the interpreter; the
// pages parse every answer and live frame with these schemas). Servers keep the compiled
// parsers: zod's config is process-wide, so this must not reach them.
import { z } from "zod";

const g = globalThis as { window?: unknown; document?: unknown };
if (g.window !== undefined && g.document !== undefined) z.config({ jitless: true });
