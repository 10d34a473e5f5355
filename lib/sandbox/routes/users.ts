import {
  createUserMetadataSchema,
  createUserMultipartSchema,
  createUserSchema,
  listUsersQuerySchema,
  metadataKeySchema,
  updateUserMetadataItemSchema,
  updateUserMetadataSchema,
  updateUserSchema,
  type CreateUser,
  type CreateUserMultipart,
} from "@/lib/schemas/users";
import type { SandboxContext, SandboxRouter } from "../context";
import { readImage } from "../files";
import { formInput, formValue, isMultipart, parseWith, readForm, readJsonObject } from "../request";
import {
  createUserMetadata,
  deleteAllUserMetadata,
  deleteUserMetadataItem,
  getUserMetadata,
  getUserMetadataItem,
  updateUserMetadata,
} from "../user-metadata";
import {
  createUser,
  deleteUser,
  getUser,
  listUsers,
  updateUser,
  type CheckedImage,
  type NewUser,
} from "../users";

/** The metadata family of the contract's supporting operations. */
function registerUserMetadataRoutes(api: SandboxRouter): void {
  const path = "/v3/users/:user_id/metadata";
  const ids = (c: SandboxContext) =>
    [c.get("db"), c.get("app").id, c.req.param("user_id") ?? ""] as const;

  api.get(path, async (c) => c.json(await getUserMetadata(...ids(c))));
  api.post(path, async (c) => {
    const { metadata } = parseWith(createUserMetadataSchema, await readJsonObject(c));
    return c.json(await createUserMetadata(...ids(c), metadata));
  });
  api.put(path, async (c) => {
    const { metadata, upsert } = parseWith(updateUserMetadataSchema, await readJsonObject(c));
    return c.json(await updateUserMetadata(...ids(c), metadata, upsert));
  });
  api.delete(path, async (c) => {
    await deleteAllUserMetadata(...ids(c));
    return c.json({});
  });

  api.get(`${path}/:key`, async (c) =>
    c.json(await getUserMetadataItem(...ids(c), c.req.param("key") ?? "")),
  );
  api.put(`${path}/:key`, async (c) => {
    const key = parseWith(metadataKeySchema, c.req.param("key") ?? "");
    const { value, upsert } = parseWith(updateUserMetadataItemSchema, await readJsonObject(c));
    return c.json(await updateUserMetadata(...ids(c), { [key]: value }, upsert));
  });
  api.delete(`${path}/:key`, async (c) => {
    await deleteUserMetadataItem(...ids(c), c.req.param("key") ?? "");
    return c.json({});
  });
}

/** Users (platform interface 4.3 and the contract's supporting operations). */
export function registerUserRoutes(api: SandboxRouter): void {
  api.post("/v3/users", async (c) => {
    const { user, profileImage } = isMultipart(c)
      ? await readMultipartUser(c)
      : await readJsonUser(c);
    return c.json(await createUser(c, user, profileImage));
  });

  api.get("/v3/users", async (c) => {
    const query = parseWith(listUsersQuerySchema, c.req.query());
    return c.json(await listUsers(c.get("db"), c.get("app").id, query));
  });

  api.get("/v3/users/:user_id", async (c) => {
    return c.json(await getUser(c.get("db"), c.get("app").id, c.req.param("user_id")));
  });

  api.put("/v3/users/:user_id", async (c) => {
    const changes = parseWith(updateUserSchema, await readJsonObject(c));
    return c.json(await updateUser(c.get("db"), c.get("app").id, c.req.param("user_id"), changes));
  });

  registerUserMetadataRoutes(api);

  api.delete("/v3/users/:user_id", async (c) => {
    await deleteUser(c.get("db"), c.get("app").id, c.req.param("user_id"));
    return c.json({});
  });
}

async function readJsonUser(
  c: SandboxContext,
): Promise<{ user: NewUser; profileImage?: undefined }> {
  const input = parseWith(createUserSchema, await readJsonObject(c));
  return { user: toNewUser(input, input.profile_url, input.metadata) };
}

/** Multipart creation carries no metadata: the interface adds it with the metadata operation. */
async function readMultipartUser(
  c: SandboxContext,
): Promise<{ user: NewUser; profileImage?: CheckedImage }> {
  const form = await readForm(c);
  const input = parseWith(createUserMultipartSchema, {
    ...formInput(form, {}),
    profile_file: formValue(form, "profile_file"),
  });
  // Checked before anything is written. An uploaded image wins over a profile_url sent beside it.
  const profileImage = input.profile_file
    ? await readImage("profile_file", input.profile_file)
    : undefined;
  return { user: toNewUser(input, input.profile_url ?? "", {}), profileImage };
}

function toNewUser(
  input: CreateUser | CreateUserMultipart,
  profileUrl: string,
  metadata: Record<string, string>,
): NewUser {
  return {
    userId: input.user_id,
    nickname: input.nickname,
    profileUrl,
    issueAccessToken: input.issue_access_token,
    metadata,
    issueSessionToken: input.issue_session_token,
    sessionTokenExpiresAt: input.session_token_expires_at,
  };
}
