import type { z } from "zod";
import type { Database } from "@/lib/db/client";
import { channelFreezeSchema } from "@/lib/schemas/channels";
import type { FormFieldKinds } from "@/lib/schemas/form-fields";
import { deleteChannel, readChannelCreateBody } from "../channels";
import type { ChannelType } from "../lookups";
import type { Context } from "hono";
import type { SandboxContext, SandboxEnv, SandboxRouter } from "../context";
import { readImage } from "../files";
import { parseWith, readJsonObject } from "../request";

type CoverImage = { bytes: Uint8Array; contentType: string };

export type ChannelOperations<
  Schema extends z.ZodType,
  ListQuery extends z.ZodType,
  UpdateSchema extends z.ZodType,
  Resource,
> = {
  type: ChannelType;
  createSchema: Schema;
  listQuerySchema: ListQuery;
  formFields: FormFieldKinds;
  updateSchema: UpdateSchema;
  updateFormFields: FormFieldKinds;
  create: (c: SandboxContext, input: z.output<Schema>, cover?: CoverImage) => Promise<Resource>;
  update: (
    c: SandboxContext,
    channelUrl: string,
    input: z.output<UpdateSchema>,
    cover?: CoverImage,
  ) => Promise<Resource>;
  get: (db: Database, appId: string, channelUrl: string) => Promise<Resource>;
  list: (
    db: Database,
    appId: string,
    query: z.output<ListQuery>,
  ) => Promise<{ channels: Partial<Resource>[]; next: string }>;
  freeze: (db: Database, appId: string, channelUrl: string, freeze: boolean) => Promise<Resource>;
};

/** An operation on one channel of the request's application, given what the request says. */
type OnChannel<Input, Result> = (
  db: Database,
  appId: string,
  channelUrl: string,
  input: Input,
) => Promise<Result>;

/** Answers with what `operation` returns for the channel the path names (`:channel_url`). */
export async function answerOnChannel<Input, Result>(
  c: Context<SandboxEnv, "/:channel_url">,
  operation: OnChannel<Input, Result>,
  input: Input,
) {
  return c.json(await operation(c.get("db"), c.get("app").id, c.req.param("channel_url"), input));
}

/**
 * Reads a creation or update body (JSON, or multipart with `cover_file`) by `schema`. The cover
 * is checked before anything is written; an uploaded one wins over a `cover_url` beside it.
 */
async function readChannelBody<S extends z.ZodType>(
  c: SandboxContext,
  schema: S,
  formFields: FormFieldKinds,
): Promise<{ input: z.output<S>; cover?: CoverImage }> {
  const { body, coverFile } = await readChannelCreateBody(c, formFields);
  const input = parseWith(schema, body);
  const cover = coverFile === undefined ? undefined : await readImage("cover_file", coverFile);
  return { input, cover };
}

/**
 * Open and group channels answer the same operations under their own prefix
 * (`/v3/open_channels`, `/v3/group_channels`); only the body and the resource differ.
 */
export function registerChannelRoutes<
  Schema extends z.ZodType,
  ListQuery extends z.ZodType,
  UpdateSchema extends z.ZodType,
  Resource,
>(
  api: SandboxRouter,
  prefix: string,
  operations: ChannelOperations<Schema, ListQuery, UpdateSchema, Resource>,
): void {
  api.post(prefix, async (c) => {
    const { input, cover } = await readChannelBody(
      c,
      operations.createSchema,
      operations.formFields,
    );
    return c.json(await operations.create(c, input, cover));
  });

  api.put(`${prefix}/:channel_url`, async (c) => {
    const { input, cover } = await readChannelBody(
      c,
      operations.updateSchema,
      operations.updateFormFields,
    );
    return c.json(await operations.update(c, c.req.param("channel_url"), input, cover));
  });

  api.get(prefix, async (c) => {
    const query = parseWith(operations.listQuerySchema, c.req.query());
    return c.json(await operations.list(c.get("db"), c.get("app").id, query));
  });

  api.get(`${prefix}/:channel_url`, async (c) => {
    return answerOnChannel(c, operations.get, undefined);
  });

  api.delete(`${prefix}/:channel_url`, async (c) => {
    await deleteChannel(c.get("db"), c.get("app").id, operations.type, c.req.param("channel_url"));
    return c.json({});
  });

  api.put(`${prefix}/:channel_url/freeze`, async (c) => {
    const { freeze } = parseWith(channelFreezeSchema, await readJsonObject(c));
    return answerOnChannel(c, operations.freeze, freeze);
  });
}
