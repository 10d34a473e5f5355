import type { SandboxRouter } from "../context";
import { registerFileRoutes } from "./files";
import { registerGroupChannelRoutes } from "./group-channels";
import { registerMessageRoutes } from "./messages";
import { registerMigrationRoutes } from "./migration";
import { registerOpenChannelRoutes } from "./open-channels";
import { registerSandboxEventRoutes } from "./sandbox-events";
import { registerUserRoutes } from "./users";
import { registerWebhookSettingsRoutes } from "./webhook-settings";

export const registerRoutes = {
  /** Routes served without an Api-Token. */
  publicFiles(api: SandboxRouter) {
    registerFileRoutes(api);
  },
  authenticated(api: SandboxRouter) {
    registerWebhookSettingsRoutes(api);
    registerUserRoutes(api);
    registerOpenChannelRoutes(api);
    registerGroupChannelRoutes(api);
    registerMigrationRoutes(api);
    registerMessageRoutes(api);
    registerSandboxEventRoutes(api);
  },
};
