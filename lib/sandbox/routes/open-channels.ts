import {
  openChannelCreateSchema,
  openChannelFormFields,
  openChannelListQuerySchema,
  openChannelUpdateFormFields,
  openChannelUpdateSchema,
} from "@/lib/schemas/channels";
import {
  createOpenChannel,
  freezeOpenChannel,
  getOpenChannel,
  listOpenChannels,
  updateOpenChannel,
} from "../channels";
import type { SandboxRouter } from "../context";
import { registerChannelRoutes } from "./channel-routes";

/** Open channels (platform interface 4.4 and the contract's supporting operations). */
export function registerOpenChannelRoutes(api: SandboxRouter): void {
  registerChannelRoutes(api, "/v3/open_channels", {
    type: "open",
    createSchema: openChannelCreateSchema,
    formFields: openChannelFormFields,
    listQuerySchema: openChannelListQuerySchema,
    create: createOpenChannel,
    get: getOpenChannel,
    list: listOpenChannels,
    freeze: freezeOpenChannel,
    updateSchema: openChannelUpdateSchema,
    updateFormFields: openChannelUpdateFormFields,
    update: updateOpenChannel,
  });
}
