"use server";

import { headers } from "next/headers";
import { revalidatePath } from "next/cache";
import { z } from "zod";
import { getDb } from "@/lib/db/client";
import {
  applicationRefSchema,
  createApplicationSchema,
  rateLimitSchema,
} from "@/lib/schemas/sandbox-applications";
import { runCompatibilityCheck } from "@/lib/conformance/compatibility";
import { getPlatformClient } from "@/lib/platform";
import { requestOrigin, sandboxApplicationUrl } from "@/lib/request-origin";
import {
  createApplication,
  deleteApplication,
  rotateApiToken,
  setApplicationRateLimit,
} from "@/lib/sandbox";
import { noSuchSandboxApplication } from "./action-error";
import { ActionError, adminAction } from "./safe-action";

const settingsPath = "/settings";

/** Read-only operations against the target, each answer checked against the shared schemas. */
export const checkCompatibility = adminAction(z.object({}), async () =>
  runCompatibilityCheck(await getPlatformClient({ rateLimitRetries: 1 })),
);

// Sandbox administration goes through lib/sandbox's door, which drops every cache of the
// application (in every process) itself.

export const createSandboxApplication = adminAction(createApplicationSchema, async (input) => {
  const app = await createApplication(await getDb(), input);
  if (!app)
    throw new ActionError(`An application with the id "${input.id}" already exists.`, {
      field: "id",
    });
  revalidatePath(settingsPath);
  return {
    id: app.id,
    name: app.name,
    baseUrl: sandboxApplicationUrl(requestOrigin(await headers()), app.id),
  };
});

export const deleteSandboxApplication = adminAction(applicationRefSchema, async ({ appId }) => {
  const outcome = await deleteApplication(await getDb(), appId);
  if (outcome === "missing") throw noSuchSandboxApplication(appId);
  if (outcome === "default")
    throw new ActionError("The default application cannot be deleted: the console uses it.");
  revalidatePath(settingsPath);
  return { appId };
});

export const setSandboxRateLimit = adminAction(
  rateLimitSchema,
  async ({ appId, get, write, migration }) => {
    const rateLimit =
      get === undefined && write === undefined && migration === undefined
        ? null
        : { get, write, migration };
    if (!(await setApplicationRateLimit(await getDb(), appId, rateLimit)))
      throw noSuchSandboxApplication(appId);
    revalidatePath(settingsPath);
    return { appId, rateLimit };
  },
);

export const rotateSandboxApiToken = adminAction(applicationRefSchema, async ({ appId }) => {
  if ((await rotateApiToken(await getDb(), appId)) === undefined)
    throw noSuchSandboxApplication(appId);
  revalidatePath(settingsPath);
  return { appId };
});
