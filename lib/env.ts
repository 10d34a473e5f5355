import ipaddr from "ipaddr.js";
import { z } from "zod";
import { applicationIdPattern } from "@/lib/schemas/sandbox-applications";

const booleanFlag = z
  .enum(["true", "false", "1", "0"], { error: "must be true or false" })
  .transform((value) => value === "true" || value === "1");

/**
 * Every environment variable the console and the sandbox read, validated once.
 * A bad value stops the process with a message that names the variable.
 */
/** "10.0.0.5, 192.168.0.0/16, ::1": addresses and CIDR ranges, parsed into ranges. */
const addressRanges = z.string().transform((value, ctx) => {
  const ranges: Array<[ipaddr.IPv4 | ipaddr.IPv6, number]> = [];
  for (const entry of value
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean)) {
    try {
      if (entry.includes("/")) ranges.push(ipaddr.parseCIDR(entry));
      else {
        const address = ipaddr.process(entry);
        ranges.push([address, address.kind() === "ipv4" ? 32 : 128]);
      }
    } catch {
      ctx.addIssue({ code: "custom", message: `"${entry}" is not an IP address or CIDR range` });
      return z.NEVER;
    }
  }
  return ranges;
});

/** 32 bytes, as 64 hex digits or base64: the AES-256-GCM key remote targets' tokens are sealed with. */
const secretKey = z.string().transform((value, ctx) => {
  const text = value.trim();
  const bytes = /^[0-9a-fA-F]{64}$/.test(text)
    ? Buffer.from(text, "hex")
    : /^[A-Za-z0-9+/_-]{43}=?$/.test(text)
      ? Buffer.from(text, "base64")
      : undefined;
  if (bytes?.length !== 32) {
    ctx.addIssue({
      code: "custom",
      message:
        "must be 32 bytes as 64 hex digits or base64 (e.g. the output of `openssl rand -hex 32`)",
    });
    return z.NEVER;
  }
  return bytes;
});

/** Targets (lib/targets): remote platforms added on the Settings page. */
const targetsEnv = {
  SWITCHBOARD_SECRET_KEY: secretKey.optional(),
};

/** A TCP port; 0 asks the system for a free one (the tests' servers do). */
const portNumber = z
  .string()
  .regex(/^\d{1,5}$/, "must be a port number from 0 to 65535")
  .transform(Number)
  .refine((port) => port <= 65535, "must be a port number from 0 to 65535");

/** Where a server listens: an IP address, or a host name such as localhost. */
const listenHost = z
  .string()
  .refine(
    (host) =>
      ipaddr.isValid(host) ||
      /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/.test(
        host,
      ),
    "must be an IP address or a host name",
  );

const envSchema = z.object({
  ...targetsEnv,
  PORT: portNumber.default(3000),
  SANDBOX_PORT: portNumber.default(3001),
  SANDBOX_HOST: listenHost.default("127.0.0.1"),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
    .optional(),
  DATABASE_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/, "must be a lower-case PostgreSQL identifier")
    .optional(),
  DATA_DIR: z.string().min(1).default(".data"),
  ADMIN_PASSWORD: z.string().min(8, "must be at least 8 characters").optional(),
  SESSION_TTL_HOURS: z.coerce.number().int().positive().default(12),
  SANDBOX_APP_ID: z
    .string()
    .regex(applicationIdPattern, "letters, digits, _ and - only, at most 64")
    .default("local"),
  SANDBOX_API_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  SANDBOX_RATE_LIMIT: z.string().optional(),
  SANDBOX_FAULTS: z.string().optional(),
  WEBHOOK_ALLOW_LOOPBACK: booleanFlag.default(true),
  WEBHOOK_ALLOW_PRIVATE: booleanFlag.default(false),
  SANDBOX_WEBHOOK_TIMEOUT_MS: z.coerce.number().int().positive().max(5000).default(5000),
  WEBHOOK_LOG_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  PLATFORM_CHAT_URL: z.url({ protocol: /^https?$/ }).optional(),
  PLATFORM_CALLS_URL: z.url({ protocol: /^https?$/ }).optional(),
  PLATFORM_APP_ID: z.string().min(1).optional(),
  PLATFORM_API_TOKEN: z.string().min(1).optional(),
  IMPORT_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16),
  TRUSTED_PROXIES: addressRanges.default([]),
  PLATFORM_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  IMPORT_WORKER_EXIT_WHEN_IDLE: booleanFlag.default(false),
  SANDBOX_EXIT_WITH_PARENT: booleanFlag.default(false),
});

export type Env = z.infer<typeof envSchema>;

let cached: Env | undefined;

/** The configuration `source` describes, or an error that names every bad variable. */
export function parseEnv(source: Record<string, string | undefined>): Env {
  const parsed = envSchema.safeParse(source);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join(".")}: ${issue.message}`);
    throw new Error(`Invalid environment configuration:\n${lines.join("\n")}`);
  }
  return parsed.data;
}

export function env(): Env {
  cached ??= parseEnv(process.env);
  return cached;
}
