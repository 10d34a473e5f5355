import {
  groupChannelCreateSchema,
  groupChannelFormFields,
  groupChannelListQuerySchema,
  groupChannelUpdateFormFields,
  groupChannelUpdateSchema,
  groupChannelInviteSchema,
  groupChannelMembersQuerySchema,
} from "@/lib/schemas/channels";
import {
  createGroupChannel,
  freezeGroupChannel,
  getGroupChannel,
  inviteGroupChannelMembers,
  listGroupChannelMembers,
  listGroupChannels,
  updateGroupChannel,
} from "../channels";
import type { SandboxRouter } from "../context";
import { parseWith, readJsonObject } from "../request";
import { answerOnChannel, registerChannelRoutes } from "./channel-routes";

/** Group channels (platform interface 4.5 and the contract's supporting operations). */
export function registerGroupChannelRoutes(api: SandboxRouter): void {
  registerChannelRoutes(api, "/v3/group_channels", {
    type: "group",
    createSchema: groupChannelCreateSchema,
    formFields: groupChannelFormFields,
    listQuerySchema: groupChannelListQuerySchema,
    create: createGroupChannel,
    get: getGroupChannel,
    list: listGroupChannels,
    freeze: freezeGroupChannel,
    updateSchema: groupChannelUpdateSchema,
    updateFormFields: groupChannelUpdateFormFields,
    update: updateGroupChannel,
  });

  api.post("/v3/group_channels/:channel_url/invite", async (c) => {
    const input = parseWith(groupChannelInviteSchema, await readJsonObject(c));
    return answerOnChannel(c, inviteGroupChannelMembers, input);
  });

  api.get("/v3/group_channels/:channel_url/members", async (c) => {
    const query = parseWith(groupChannelMembersQuerySchema, c.req.query());
    return answerOnChannel(c, listGroupChannelMembers, query);
  });
}
