"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { getDb } from "@/lib/db/client";
import {
  applicationRefSchema,
  createApplicationSchema,
  rateLimitSchema,
} from "@/lib/forms/sandbox-applications";
import { runCompatibilityCheck } from "@/lib/conformance/compatibility";
import { forgetEmbeddedCredentials, getPlatformClient } from "@/lib/platform";
import {
  createApplication,
  deleteApplication,
  findApplication,
  getSandboxApp,
  rotateApiToken,
  setApplicationRateLimit,
} from "@/lib/sandbox";
import { sandboxBaseUrl } from "@/lib/settings/sandbox-applications";
import { ActionError, adminAction } from "./safe-action";

const settingsPath = "/settings";

async function existingApplication(appId: string) {
  const app = await findApplication(await getDb(), appId);
  if (!app)
    throw new ActionError(`There is no sandbox application "${appId}" any more. Reload the page.`);
  return app;
}

/** Read-only operations against the target, each answer checked against the shared schemas. */
export const checkCompatibility = adminAction(z.object({}), async () =>
  runCompatibilityCheck(await getPlatformClient({ rateLimitRetries: 1 })),
);

export const createSandboxApplication = adminAction(createApplicationSchema, async (input) => {
  const app = await createApplication(await getDb(), input);
  if (!app)
    throw new ActionError(`An application with the id "${input.id}" already exists.`, {
      field: "id",
    });
  revalidatePath(settingsPath);
  return { id: app.id, name: app.name, baseUrl: await sandboxBaseUrl(app.id) };
});

export const deleteSandboxApplication = adminAction(applicationRefSchema, async ({ appId }) => {
  const app = await existingApplication(appId);
  if (app.isDefault)
    throw new ActionError("The default application cannot be deleted: the console uses it.");
  await deleteApplication(await getDb(), appId);
  getSandboxApp().resetRateLimit(appId);
  revalidatePath(settingsPath);
  return { appId };
});

export const setSandboxRateLimit = adminAction(
  rateLimitSchema,
  async ({ appId, get, write, migration }) => {
    await existingApplication(appId);
    const rateLimit =
      get === undefined && write === undefined && migration === undefined
        ? null
        : { get, write, migration };
    await setApplicationRateLimit(await getDb(), appId, rateLimit);
    // Buckets sized for the old limit would otherwise linger until they refill.
    getSandboxApp().resetRateLimit(appId);
    revalidatePath(settingsPath);
    return { appId, rateLimit };
  },
);

export const rotateSandboxApiToken = adminAction(applicationRefSchema, async ({ appId }) => {
  await existingApplication(appId);
  await rotateApiToken(await getDb(), appId);
  forgetEmbeddedCredentials();
  revalidatePath(settingsPath);
  return { appId };
});
