import type { z } from "zod";
import type { groupChannelCreateSchema, openChannelCreateSchema } from "@/lib/schemas/channels";
import type { migratedMessageSchema } from "@/lib/schemas/messages";
import type { CreateUserInput, updateUserSchema, UserResource } from "@/lib/schemas/users";

/**
 * What the client sends and receives. Request bodies are the shared schemas' inputs. Channel
 * and webhook responses are typed as a real platform may answer them (role null, categories
 * added after this was written), a little looser than the sandbox's own resource types.
 */

export type WebhookSettings = {
  enabled: boolean;
  url: string;
  include_members: boolean;
  enabled_events: string[];
};

export type WebhookSettingsResponse = {
  webhook: WebhookSettings & { all_webhook_categories?: string[] };
};

export type WebhookSettingsUpdate = {
  enabled?: boolean;
  url?: string;
  include_members?: boolean;
  enabled_events?: string[];
};

export type User = UserResource;

export type CreateUserBody = CreateUserInput;

export type UpdateUserBody = z.input<typeof updateUserSchema>;

export type ChannelOperator = { user_id: string; nickname: string; profile_url: string };

export type OpenChannel = {
  name: string;
  channel_url: string;
  custom_type: string;
  is_ephemeral: boolean;
  participant_count: number;
  max_length_message: number;
  created_at: number;
  cover_url: string;
  data: string;
  operators: ChannelOperator[];
  freeze: boolean;
};

export type CreateOpenChannelBody = z.input<typeof openChannelCreateSchema>;

export type GroupChannelMember = {
  user_id: string;
  nickname: string;
  profile_url: string;
  is_active: boolean;
  is_online: boolean;
  last_seen_at: number;
  state: string;
  role: string | null;
  metadata: Record<string, string>;
};

export type GroupChannel = {
  name: string;
  channel_url: string;
  cover_url: string;
  custom_type: string;
  unread_message_count: number;
  data: string;
  is_distinct: boolean;
  is_public: boolean;
  is_super: boolean;
  is_ephemeral: boolean;
  is_access_code_required: boolean;
  member_count: number;
  joined_member_count: number;
  unread_mention_count: number;
  created_by: { user_id: string; nickname: string; profile_url: string } | null;
  members: GroupChannelMember[];
  operators: Array<Omit<GroupChannelMember, "role">>;
  last_message: unknown;
  message_survival_seconds: number;
  max_length_message: number;
  created_at: number;
  freeze: boolean;
};

export type CreateGroupChannelBody = z.input<typeof groupChannelCreateSchema>;

export type MigratedMessage = z.input<typeof migratedMessageSchema>;

export type Page<K extends string, T> = { [key in K]: T[] } & { next: string };

export type SandboxEmitResult = { event_id: string; delivered: boolean; category: string };

export type { DeliveryRecord as SandboxDelivery } from "@/lib/schemas/sandbox-events";
