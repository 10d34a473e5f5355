import { randomBytes } from "node:crypto";
import { asc, eq } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import { sandboxApps, type RateLimitSettings, type WebhookSettings } from "@/lib/db/schema";
import { sandboxApplicationUrl } from "@/lib/request-origin";
import { maskToken } from "@/lib/text/masked-token";
import { storedWebhookSettingsSchema } from "@/lib/schemas/sandbox-storage";
import { deleteApplicationDeliveries } from "../webhooks/deliveries";
import { applicationChanged, parsedApplication, type SandboxApplication } from "./cache";

/**
 * The one door into sandbox administration: every change of an application (its creation, rate
 * limit, token, webhook settings, deletion) goes through here, and each one drops what every
 * process keeps of the row once it is written: at once in this process and, on PostgreSQL, in
 * the others by NOTIFY (`./cache.ts`). The rate limiter sizes its buckets from the row it is
 * given, so a new limit starts fresh buckets wherever the new row is read. Callers never touch a
 * cache themselves.
 */

export { cachedApplication, type SandboxApplication } from "./cache";

const initialWebhookSettings = {
  enabled: false,
  url: "",
  include_members: false,
  enabled_events: [] as string[],
};

function generateApiToken(): string {
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
  if (apiToken) await changeRow(db, appId, { apiToken });
  const application = await findApplication(db, appId);
  if (!application) throw new Error(`Default sandbox application ${appId} could not be created`);
  return { application, generatedToken: apiToken ? undefined : created?.apiToken };
}

/** The stored row, read from the database (`cachedApplication` reads it from memory). */
export async function findApplication(
  db: Database,
  appId: string,
): Promise<SandboxApplication | undefined> {
  const [app] = await db.select().from(sandboxApps).where(eq(sandboxApps.id, appId)).limit(1);
  return app && parsedApplication(app);
}

export async function listApplications(db: Database): Promise<SandboxApplication[]> {
  const apps = await db
    .select()
    .from(sandboxApps)
    .orderBy(asc(sandboxApps.createdAt), asc(sandboxApps.id));
  return apps.map(parsedApplication);
}

/** What the console shows of a sandbox application: never the token itself. */
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

export async function describeApplications(
  db: Database,
  origin: string,
): Promise<SandboxApplicationView[]> {
  return (await listApplications(db)).map((app) => ({
    id: app.id,
    name: app.name,
    baseUrl: sandboxApplicationUrl(origin, app.id),
    maskedToken: maskToken(app.apiToken),
    isDefault: app.isDefault,
    rateLimit: app.rateLimit ?? null,
    createdAt: app.createdAt.toISOString(),
  }));
}

/**
 * Creates another application (for example a scratch one to rehearse an import in); undefined
 * when the id is taken.
 */
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
  if (app) await applicationChanged(db, app.id);
  return app;
}

/**
 * Sets an application's own rate limit (null: SANDBOX_RATE_LIMIT applies); false when there is
 * no such application.
 */
export async function setApplicationRateLimit(
  db: Database,
  appId: string,
  rateLimit: RateLimitSettings | null,
): Promise<boolean> {
  return changeRow(db, appId, { rateLimit });
}

/**
 * Gives an application a new token and returns it; the old one is refused from now on, in every
 * process. Undefined when there is no such application.
 */
export async function rotateApiToken(db: Database, appId: string): Promise<string | undefined> {
  const apiToken = generateApiToken();
  return (await changeRow(db, appId, { apiToken })) ? apiToken : undefined;
}

/**
 * Replaces an application's webhook settings with what `update` makes of the stored ones, under
 * a row lock, so concurrent partial updates do not undo each other. Undefined when there is no
 * such application.
 */
export async function updateWebhookSettings<Settings extends WebhookSettings>(
  db: Database,
  appId: string,
  update: (stored: WebhookSettings) => Settings,
): Promise<Settings | undefined> {
  const settings = await db.transaction(async (tx) => {
    const [row] = await tx
      .select({ webhook: sandboxApps.webhook })
      .from(sandboxApps)
      .where(eq(sandboxApps.id, appId))
      .for("update");
    if (!row) return undefined;
    const merged = update(storedWebhookSettingsSchema.parse(row.webhook));
    await tx.update(sandboxApps).set({ webhook: merged }).where(eq(sandboxApps.id, appId));
    return merged;
  });
  if (settings) await applicationChanged(db, appId);
  return settings;
}

/**
 * Deletes a non-default application and, by cascade, all its data; its webhook attempts have
 * no foreign key to cascade by, so they go with its events here.
 */
export async function deleteApplication(
  db: Database,
  appId: string,
): Promise<"deleted" | "missing" | "default"> {
  const app = await findApplication(db, appId);
  if (!app) return "missing";
  if (app.isDefault) return "default";
  await db.transaction(async (tx) => {
    await deleteApplicationDeliveries(tx, appId);
    await tx.delete(sandboxApps).where(eq(sandboxApps.id, appId));
  });
  await applicationChanged(db, appId);
  return "deleted";
}

/** Writes `values` into an application's row, then drops the row wherever it is kept. */
async function changeRow(
  db: Database,
  appId: string,
  values: Partial<Pick<SandboxApplication, "apiToken" | "rateLimit">>,
): Promise<boolean> {
  const changed = await db
    .update(sandboxApps)
    .set(values)
    .where(eq(sandboxApps.id, appId))
    .returning({ id: sandboxApps.id });
  if (changed.length === 0) return false;
  await applicationChanged(db, appId);
  return true;
}
