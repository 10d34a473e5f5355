import "server-only";
import { headers } from "next/headers";
import { requestOrigin } from "@/lib/request-origin";
import { getDb } from "@/lib/db/client";
import type { RateLimitSettings } from "@/lib/db/schema";
import { maskToken } from "@/lib/platform";
import { findApplication, getSandboxApp, listApplications } from "@/lib/sandbox";

/** What the settings page shows of a sandbox application: never the token itself. */
export type SandboxApplicationView = {
  id: string;
  name: string;
  /** `{origin}/sandbox/{id}`: both the chat and the calls base URL. */
  baseUrl: string;
  maskedToken: string;
  isDefault: boolean;
  rateLimit: RateLimitSettings | null;
  createdAt: string;
};

export async function sandboxBaseUrl(appId: string): Promise<string> {
  return `${requestOrigin(await headers())}/sandbox/${encodeURIComponent(appId)}`;
}

export async function listSandboxApplications(): Promise<SandboxApplicationView[]> {
  const db = await getSandboxApp().ready();
  const origin = requestOrigin(await headers());
  return (await listApplications(db)).map((app) => ({
    id: app.id,
    name: app.name,
    baseUrl: `${origin}/sandbox/${encodeURIComponent(app.id)}`,
    maskedToken: maskToken(app.apiToken),
    isDefault: app.isDefault,
    rateLimit: app.rateLimit ?? null,
    createdAt: app.createdAt.toISOString(),
  }));
}

/** An application's full token (the reveal and copy buttons), or undefined when there is none. */
export async function applicationToken(appId: string): Promise<string | undefined> {
  return (await findApplication(await getDb(), appId))?.apiToken;
}
