import type { Context, Hono } from "hono";
import type { Database } from "@/lib/db/client";
import { sandboxApplicationUrl } from "@/lib/request-origin";
import type { SandboxApplication } from "./applications";
import type { SandboxConfig } from "./config";

export type SandboxEnv = {
  Variables: {
    db: Database;
    app: SandboxApplication;
    config: SandboxConfig;
    /** Origin the request came in on, to build URLs of stored files. */
    origin: string;
    /** Tells the webhook worker that the outbox has new events. */
    onEventsAccepted: () => void;
  };
};

export type SandboxRouter = Hono<SandboxEnv>;
export type SandboxContext = Context<SandboxEnv>;

/** `{origin}/sandbox/{application_id}`: the base URL of an application, chat and calls alike. */
export function applicationBaseUrl(c: SandboxContext): string {
  return sandboxApplicationUrl(c.get("origin"), c.get("app").id);
}
