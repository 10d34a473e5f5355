import type { z } from "zod";
import type {
  ChannelUserSummary,
  GroupChannelMemberResource,
  GroupChannelResource,
  groupChannelCreateSchema,
  groupChannelInviteSchema,
  OpenChannelResource,
  openChannelCreateSchema,
} from "@/lib/schemas/channels";
import type {
  MessageResource,
  migratedMessageSchema,
  migrationSchema,
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
export type GroupChannelMember = GroupChannelMemberResource;
export type GroupChannel = GroupChannelResource;
export type CreateGroupChannelBody = z.input<typeof groupChannelCreateSchema>;
export type InviteMembersBody = z.input<typeof groupChannelInviteSchema>;

export type MigratedMessage = z.input<typeof migratedMessageSchema>;
export type MigrationBody = z.input<typeof migrationSchema>;
export type Message = MessageResource;

export type Page<K extends string, T> = { [key in K]: T[] } & { next: string };

export type SandboxEmitResult = { event_id: string; delivered: boolean; category: string };

export type { DeliveryRecord as SandboxDelivery } from "@/lib/schemas/sandbox-events";
