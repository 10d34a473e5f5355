import {
  messageGetQuerySchema,
  messageIdSchema,
  messageListQuerySchema,
  reactionSchema,
  sendMessageSchema,
  updateMessageSchema,
} from "@/lib/schemas/messages";
import type { SandboxContext, SandboxRouter } from "../context";
import type { ChannelType } from "../lookups";
import { countMessages, getMessage, listMessages } from "../message-reads";
import { deleteMessage, sendMessage, updateMessage } from "../message-sends";
import { addReaction, listReactions, removeReaction } from "../reactions";
import { parseWith, readJsonObject } from "../request";

/**
 * The message API of both channel kinds under their own prefix: list, send, total count, and
 * one message's get, update, delete and reactions (sandbox contract, "Messages, further").
 */
export function registerMessageRoutes(api: SandboxRouter): void {
  for (const channelType of ["open", "group"] as const) {
    const messages = `/v3/${channelType}_channels/:channel_url/messages`;
    const one = `${messages}/:message_id`;
    // What every handler names: the database, the application, the channel, and the message.
    const at = (c: SandboxContext) =>
      [c.get("db"), c.get("app").id, channelType satisfies ChannelType, channelUrl(c)] as const;
    const messageId = (c: SandboxContext) =>
      parseWith(messageIdSchema, c.req.param("message_id") ?? "");

    api.get(messages, async (c) => {
      const query = parseWith(messageListQuerySchema, c.req.query());
      return c.json(await listMessages(...at(c), query));
    });
    api.post(messages, async (c) => {
      const input = parseWith(sendMessageSchema, await readJsonObject(c));
      return c.json(await sendMessage(...at(c), input));
    });
    // Before `/:message_id`, which would take "total_count" for an id.
    api.get(`${messages}/total_count`, async (c) => c.json(await countMessages(...at(c))));

    api.get(one, async (c) => {
      const query = parseWith(messageGetQuerySchema, c.req.query());
      return c.json(await getMessage(...at(c), messageId(c), query));
    });
    api.put(one, async (c) => {
      const id = messageId(c);
      const input = parseWith(updateMessageSchema, await readJsonObject(c));
      return c.json(await updateMessage(...at(c), id, input));
    });
    api.delete(one, async (c) => {
      await deleteMessage(...at(c), messageId(c));
      return c.json({});
    });

    api.get(`${one}/reactions`, async (c) => c.json(await listReactions(...at(c), messageId(c))));
    api.post(`${one}/reactions`, async (c) => {
      const id = messageId(c);
      const input = parseWith(reactionSchema, await readJsonObject(c));
      return c.json(await addReaction(...at(c), id, input));
    });
    api.delete(`${one}/reactions`, async (c) => {
      const id = messageId(c);
      const input = parseWith(reactionSchema, c.req.query());
      return c.json(await removeReaction(...at(c), id, input));
    });
  }
}

function channelUrl(c: SandboxContext): string {
  return c.req.param("channel_url") ?? "";
}
