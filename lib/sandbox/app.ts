import { timingSafeEqual } from "node:crypto";
import { Hono } from "hono";
import { refuseRequestTarget } from "@/lib/schemas/request-target";
import type { Database } from "@/lib/db/client";
import { requestOrigin } from "@/lib/request-origin";
import { cachedApplication, ensureDefaultApplication } from "./applications";
import { limitBody } from "./body-limit";
import type { SandboxConfig } from "./config";
import type { SandboxEnv } from "./context";
import { ErrorCode, SandboxError, errorResponse } from "./errors";
import { fileStoredMessagesLater } from "./messages";
import { RateLimiter, type RateLimitKind } from "./rate-limit";
import { isMultipart } from "./request";
import { registerRoutes } from "./routes";

/** JSON bodies of every operation are small; a body larger than this is refused. */
export const maxJsonBodyBytes = 1024 * 1024;
/** A 5 MB image plus the other form fields. */
export const maxMultipartBodyBytes = 6 * 1024 * 1024;

export type SandboxAppOptions = {
  getDb: () => Promise<Database>;
  config: SandboxConfig;
  /** Called when events were stored for delivery, so a worker can start at once. */
  onEventsAccepted?: () => void;
};

/**
 * The embedded platform as a web-standard `Request -> Response` app. Mounted inside
 * Next.js at /sandbox/... and served on its own port by `npm run sandbox`.
 */
export function createSandboxApp({
  getDb,
  config,
  onEventsAccepted = () => {},
}: SandboxAppOptions) {
  const rateLimiter = new RateLimiter();
  let ready: Promise<Database> | undefined;
  let generatedToken: string | undefined;
  const init = () => {
    ready ??= getDb().then(async (db) => {
      ({ generatedToken } = await ensureDefaultApplication(
        db,
        config.defaultAppId,
        config.defaultApiToken,
      ));
      await fileStoredMessagesLater(db);
      return db;
    });
    ready.catch(() => {
      ready = undefined;
    });
    return ready;
  };

  const root = new Hono<SandboxEnv>();
  const api = new Hono<SandboxEnv>();

  root.onError((error, c) => {
    if (error instanceof SandboxError) return errorResponse(error);
    console.error(`[sandbox] ${c.req.method} ${new URL(c.req.url).pathname} failed:`, error);
    return errorResponse(new SandboxError(ErrorCode.internal, "Unexpected server error."));
  });
  root.notFound(() => errorResponse(new SandboxError(ErrorCode.noSuchRoute, "No such route.")));

  // The Node request guard answers these before any routing; this covers in-process callers.
  root.use("*", async (c, next) => {
    const url = new URL(c.req.url);
    const refusal = refuseRequestTarget(`${url.pathname}${url.search}`);
    if (refusal)
      return errorResponse(
        new SandboxError(ErrorCode.invalidValue, refusal.message, refusal.status),
      );
    await next();
  });

  api.use("*", async (c, next) => {
    const db = await init();
    c.set("db", db);
    c.set("config", config);
    c.set("origin", requestOrigin(c.req.raw.headers, c.req.raw.url));
    c.set("onEventsAccepted", onEventsAccepted);
    const appId = c.req.param("appId") ?? "";
    const app = await cachedApplication(db, appId);
    if (!app) {
      throw new SandboxError(ErrorCode.noSuchApplication, `No application with id "${appId}".`);
    }
    c.set("app", app);
    await next();
  });

  // Stored profile images and covers are public, like a CDN URL: browsers load them without a token.
  registerRoutes.publicFiles(api);

  api.use("*", async (c, next) => {
    if (!tokensMatch(c.req.header("api-token"), c.get("app").apiToken)) {
      throw new SandboxError(ErrorCode.unauthorized, "Missing or wrong Api-Token header.");
    }
    const kind = rateLimitKind(c.req.method, c.req.path);
    const decision = rateLimiter.take(
      c.get("app"),
      kind,
      c.get("app").rateLimit ?? config.rateLimit,
    );
    if (decision && !decision.allowed) {
      return errorResponse(
        new SandboxError(ErrorCode.rateLimited, "Too many requests: rate limit exceeded."),
        decision.headers,
      );
    }
    await injectFaults(c.req.raw, config, next);
    if (decision) {
      for (const [name, value] of Object.entries(decision.headers)) c.res.headers.set(name, value);
    }
  });

  api.use(
    "*",
    limitBody(
      (c) => (isMultipart(c) ? maxMultipartBodyBytes : maxJsonBodyBytes),
      (maxSize) => {
        throw new SandboxError(
          ErrorCode.tooLong,
          `The request body is larger than ${maxSize / 1024 / 1024} MB.`,
          413,
        );
      },
    ),
  );

  registerRoutes.authenticated(api);
  root.route("/sandbox/:appId", api);

  return Object.assign(root, {
    /** Resolves once the database is open and the default application exists. */
    ready: init,
    /** The default application's API token if this start generated it (no SANDBOX_API_TOKEN, first start). */
    generatedToken: () => generatedToken,
  });
}

export type SandboxApp = ReturnType<typeof createSandboxApp>;

/** The migration endpoint has a class of its own, as on the real platform. */
function rateLimitKind(method: string, path: string): RateLimitKind {
  if (method === "GET" || method === "HEAD") return "get";
  return /^\/sandbox\/[^/]+\/v3\/migration\//.test(path) ? "migration" : "write";
}

function tokensMatch(given: string | undefined, expected: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

async function injectFaults(request: Request, config: SandboxConfig, next: () => Promise<void>) {
  const { errorRate, hangRate, latencyMs } = config.faults;
  if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs));
  if (errorRate > 0 && Math.random() < errorRate) {
    throw new SandboxError(ErrorCode.internal, "Injected fault: internal error.");
  }
  const hang = hangRate > 0 && Math.random() < hangRate;
  // A hung request may or may not have done its work, as on a real network.
  if (hang && Math.random() < 0.5) await next();
  if (hang) await hangUntilAbandoned(request);
  await next();
}

/** Never answers; gives up only when the client goes away (or after 10 minutes). */
async function hangUntilAbandoned(request: Request): Promise<never> {
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 10 * 60_000);
    request.signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });
  throw new SandboxError(ErrorCode.internal, "Injected fault: the request hung.");
}
