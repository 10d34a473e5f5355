import { randomBytes } from "node:crypto";
import { asc, eq } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import { sandboxApps, type RateLimitSettings } from "@/lib/db/schema";
import { applicationChanged } from "./app-cache";
import { deleteApplicationDeliveries } from "./webhooks/deliveries";

export type SandboxApplication = typeof sandboxApps.$inferSelect;

export const initialWebhookSettings = {
  enabled: false,
  url: "",
  include_members: false,
  enabled_events: [] as string[],
};

export function generateApiToken(): string {
  return randomBytes(24).toString("hex");
}

/**
 * Creates the default application at first start. A token given in the environment
 * always wins, so a restart with a new SANDBOX_API_TOKEN takes effect. `generatedToken` is
 * the token this call generated (first start without SANDBOX_API_TOKEN), to be shown once.
 */
export async function ensureDefaultApplication(
  db: Database,
  appId: string,
  apiToken: string | undefined,
): Promise<{ application: SandboxApplication; generatedToken?: string }> {
  const [created] = await db
    .insert(sandboxApps)
    .values({
      id: appId,
      name: "Default application",
      apiToken: apiToken ?? generateApiToken(),
      isDefault: true,
      webhook: initialWebhookSettings,
    })
    .onConflictDoNothing()
    .returning({ apiToken: sandboxApps.apiToken });
  if (apiToken) {
    await db.update(sandboxApps).set({ apiToken }).where(eq(sandboxApps.id, appId));
    await applicationChanged(db, appId);
  }
  const application = await findApplication(db, appId);
  if (!application) throw new Error(`Default sandbox application ${appId} could not be created`);
  return { application, generatedToken: apiToken ? undefined : created?.apiToken };
}

export async function findApplication(
  db: Database,
  appId: string,
): Promise<SandboxApplication | undefined> {
  const [app] = await db.select().from(sandboxApps).where(eq(sandboxApps.id, appId)).limit(1);
  return app;
}

export async function listApplications(db: Database): Promise<SandboxApplication[]> {
  return db.select().from(sandboxApps).orderBy(asc(sandboxApps.createdAt), asc(sandboxApps.id));
}

/** Creates another application (for example a scratch one to rehearse an import in). */
export async function createApplication(
  db: Database,
  input: { id: string; name: string },
): Promise<SandboxApplication | undefined> {
  const [app] = await db
    .insert(sandboxApps)
    .values({
      id: input.id,
      name: input.name,
      apiToken: generateApiToken(),
      webhook: initialWebhookSettings,
    })
    .onConflictDoNothing()
    .returning();
  return app;
}

/**
 * Deletes a non-default application and, by cascade, all its data; its webhook attempts have
 * no foreign key to cascade by, so they go with its events here.
 */
export async function deleteApplication(db: Database, appId: string): Promise<boolean> {
  const app = await findApplication(db, appId);
  if (!app || app.isDefault) return false;
  await db.transaction(async (tx) => {
    await deleteApplicationDeliveries(tx, appId);
    await tx.delete(sandboxApps).where(eq(sandboxApps.id, appId));
  });
  await applicationChanged(db, appId);
  return true;
}

export async function setApplicationRateLimit(
  db: Database,
  appId: string,
  rateLimit: RateLimitSettings | null,
): Promise<void> {
  await db.update(sandboxApps).set({ rateLimit }).where(eq(sandboxApps.id, appId));
  await applicationChanged(db, appId);
}

export async function rotateApiToken(db: Database, appId: string): Promise<string> {
  const apiToken = generateApiToken();
  await db.update(sandboxApps).set({ apiToken }).where(eq(sandboxApps.id, appId));
  await applicationChanged(db, appId);
  return apiToken;
}
