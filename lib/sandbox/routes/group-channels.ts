import { groupChannelCreateSchema, groupChannelFormFields } from "@/lib/schemas/channels";
import {
  createGroupChannel,
  freezeGroupChannel,
  getGroupChannel,
  listGroupChannels,
} from "../channels";
import type { SandboxRouter } from "../context";
import { registerChannelRoutes } from "./channel-routes";

/** Group channels (platform interface 4.5 and the contract's supporting operations). */
export function registerGroupChannelRoutes(api: SandboxRouter): void {
  registerChannelRoutes(api, "/v3/group_channels", {
    createSchema: groupChannelCreateSchema,
    formFields: groupChannelFormFields,
    create: createGroupChannel,
    get: getGroupChannel,
    list: listGroupChannels,
    freeze: freezeGroupChannel,
  });
}
