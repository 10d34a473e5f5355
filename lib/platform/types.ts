import type { z } from "zod";
import type {
  ChannelUserSummary,
  GroupChannelMemberResource,
  GroupChannelResource,
  groupChannelCreateSchema,
  groupChannelInviteSchema,
  groupChannelUpdateSchema,
  OpenChannelResource,
  openChannelCreateSchema,
  openChannelUpdateSchema,
} from "@/lib/schemas/channels";
import type {
  MessageResource,
  migratedMessageSchema,
  migrationSchema,
  reactionListResponseSchema,
  reactionResponseSchema,
  ReactionInput,
  SendMessageInput,
  UpdateMessageInput,
} from "@/lib/schemas/messages";
import type { CreateUserInput, updateUserSchema, UserResource } from "@/lib/schemas/users";
import type {
  webhookSettingsAnswerResponseSchema,
  webhookSettingsAnswerSchema,
} from "@/lib/schemas/webhooks";

/**
 * What the client sends and receives, all inferred from the zod schemas in lib/schemas (one
 * definition per resource): request bodies are the schemas' inputs, responses their outputs,
 * checked at the boundary by the client.
 */

export type WebhookSettings = z.output<typeof webhookSettingsAnswerSchema>;
export type WebhookSettingsResponse = z.output<typeof webhookSettingsAnswerResponseSchema>;
export type WebhookSettingsUpdate = Partial<WebhookSettings>;

export type User = UserResource;
export type CreateUserBody = CreateUserInput;
export type UpdateUserBody = z.input<typeof updateUserSchema>;

export type ChannelOperator = ChannelUserSummary;
export type OpenChannel = OpenChannelResource;
export type CreateOpenChannelBody = z.input<typeof openChannelCreateSchema>;
export type UpdateOpenChannelBody = z.input<typeof openChannelUpdateSchema>;
export type GroupChannelMember = GroupChannelMemberResource;
export type GroupChannel = GroupChannelResource;
export type CreateGroupChannelBody = z.input<typeof groupChannelCreateSchema>;
export type UpdateGroupChannelBody = z.input<typeof groupChannelUpdateSchema>;
export type InviteMembersBody = z.input<typeof groupChannelInviteSchema>;

export type MigratedMessage = z.input<typeof migratedMessageSchema>;
export type MigrationBody = z.input<typeof migrationSchema>;
export type Message = MessageResource;
export type SendMessageBody = SendMessageInput;
export type UpdateMessageBody = UpdateMessageInput;
export type ReactionBody = ReactionInput;
export type Reaction = z.output<typeof reactionResponseSchema>;
export type ReactionList = z.output<typeof reactionListResponseSchema>;

export type Page<K extends string, T> = { [key in K]: T[] } & { next: string };

export type SandboxEmitResult = { event_id: string; delivered: boolean; category: string };

export type { DeliveryRecord as SandboxDelivery } from "@/lib/schemas/sandbox-events";
