import fs from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { hostileString as hostileStringOf, wrongValue } from "../fixtures/hostile";
import { sized } from "../support/test-size";
import { request, type Answer } from "./support/request";
import { signIn } from "./support/sign-in";

/**
 * Fuzzing of the console's own HTTP surface (issue 27): every server action and route handler,
 * signed in and signed out, with bodies Next.js cannot decode and with hostile values. Whatever
 * comes in, no answer is a 5xx, and no action falls through to "Something went wrong" (an error
 * nobody expected, logged with its stack). FUZZ_SEED replays a run.
 */

const { origin } = inject("console");
const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Date.now() % 2 ** 31;
/** A third of each property's cases in `npm test` (a new seed each run), all in `npm run test:slow`. */
const runs = (full: number) => sized(Math.ceil(full / 3), full);
const root = path.resolve(import.meta.dirname, "../..");
let requests = 0;
let cookie = "";

type Action = { id: string; name: string };
const actions: Action[] = Object.entries(
  (
    JSON.parse(
      fs.readFileSync(path.join(root, ".next/server/server-reference-manifest.json"), "utf8"),
    ) as { node: Record<string, { exportedName: string }> }
  ).node,
).map(([id, action]) => ({ id, name: action.exportedName }));

/** Changes that would pull the ground from under the other console tests. */
const disruptive = new Set(["signOut", "rotateSandboxApiToken", "deleteSandboxApplication"]);

/** From 127.0.0.9, so sign-in guesses here never throttle the tests' own sign-ins. */
function send(target: string, options: Parameters<typeof request>[1] = {}): Promise<Answer> {
  requests += 1;
  return request(target, { ...options, from: "127.0.0.9" });
}

function callAction(
  action: Action,
  body: Buffer | string,
  { signedIn = true, contentType = "text/plain;charset=UTF-8", at = "/settings" } = {},
): Promise<Answer> {
  return send(at, {
    method: "POST",
    headers: {
      "next-action": action.id,
      accept: "text/x-component",
      "content-type": contentType,
      origin,
      ...(signedIn ? { cookie } : {}),
    },
    body,
  });
}

/** The action's result in the RSC answer (its row 1), or undefined. */
function actionResult(answer: Answer): Record<string, unknown> | undefined {
  const row = /^1:(.*)$/m.exec(answer.text)?.[1];
  if (!row?.startsWith("{")) return undefined;
  return JSON.parse(row) as Record<string, unknown>;
}

function expectNoServerError(answer: Answer, label: string): void {
  const where = `${label} -> ${answer.status} ${answer.text.slice(0, 300)}`;
  expect(answer.status, where).toBeLessThan(500);
  expect(answer.text, where).not.toContain("Something went wrong");
}

beforeAll(async () => {
  cookie = await signIn();
});

afterAll(() => {
  console.log(`console fuzz: ${requests} requests, seed ${seed}`);
});

const multipart = (body: string) => ["multipart/form-data; boundary=x", body] as const;

/** Bodies Next.js itself cannot decode: each one was a 500 with a stack trace in the log. */
const undecodable: Array<[string, string, Buffer | string]> = [
  ["not JSON", "text/plain;charset=UTF-8", "{not json"],
  ["empty", "text/plain;charset=UTF-8", ""],
  ["1,001 arguments", "text/plain;charset=UTF-8", JSON.stringify(Array(1001).fill({}))],
  ["broken multipart", ...multipart('--x\r\nContent-Disposition: form-data; name="1"\r\n\r\nab')],
  ["multipart without a boundary", "multipart/form-data", "abc"],
  [
    "a well-formed multipart",
    ...multipart('--x\r\nContent-Disposition: form-data; name="0"\r\n\r\n[{}]\r\n--x--\r\n'),
  ],
  [
    "bytes that are not UTF-8",
    "text/plain;charset=UTF-8",
    Buffer.from([0x5b, 0x22, 0xff, 0x22, 0x5d]),
  ],
  ["a reference to a missing part", "text/plain;charset=UTF-8", '["$Q1"]'],
  ["a body over 2 MB", "text/plain;charset=UTF-8", JSON.stringify(["x".repeat(2 * 1024 * 1024)])],
];

describe("server action calls Next.js cannot decode", () => {
  it.each(undecodable)(
    "%s: a 4xx with a message, for every action, signed in or not",
    async (label, contentType, body) => {
      for (const action of actions) {
        for (const signedIn of [true, false]) {
          const answer = await callAction(action, body, { signedIn, contentType });
          const where = `${action.name} ${signedIn ? "signed in" : "signed out"}: ${answer.status} ${answer.text.slice(0, 200)}`;
          expect(answer.status, where).toBeGreaterThanOrEqual(400);
          expect(answer.status, where).toBeLessThan(500);
          expect(JSON.parse(answer.text), where).toEqual({ error: expect.any(String) });
        }
      }
    },
  );

  it("refuses a multipart post to a page or to the sign-in page, action header or not", async () => {
    for (const at of ["/sign-in", "/settings", "/nothing.png", "/sign-in/x"]) {
      const answer = await send(at, {
        method: "POST",
        headers: { "content-type": "multipart/form-data; boundary=x", cookie },
        body: '--x\r\nContent-Disposition: form-data; name="1"\r\n\r\nab',
      });
      expect(answer.status, at).toBe(415);
    }
  });

  it("still answers well-formed calls: a wrong password is checked as before", async () => {
    const signInAction = actions.find((action) => action.name === "signIn")!;
    const answer = await callAction(
      signInAction,
      JSON.stringify([{ password: "wrong", next: "/" }]),
      {
        signedIn: false,
        at: "/sign-in",
      },
    );
    expect(answer.status).toBe(200);
    expect(actionResult(answer)).toMatchObject({
      validationErrors: {
        fieldErrors: { password: [expect.stringMatching(/Wrong password|Wait/)] },
      },
    });
  });
});

describe("text that cannot be stored, sent to an action or a route handler", () => {
  const createApplication = () =>
    actions.find((action) => action.name === "createSandboxApplication")!;

  it.each([
    ["a NUL", "NUL\\u0000name"],
    ["a lone surrogate", "half \\ud800"],
  ])(
    "createSandboxApplication with %s in its name: refused beside the field, nothing created",
    async (_, name) => {
      const id = `fuzz-${Date.now().toString(36)}`;
      const answer = await callAction(createApplication(), `[{"id":"${id}","name":"${name}"}]`);
      expect(answer.status).toBe(200);
      expect(actionResult(answer)).toEqual({
        validationErrors: {
          formErrors: [],
          fieldErrors: { name: ['"name" must not contain NUL characters or unpaired surrogates.'] },
        },
      });
      const sandbox = await send(`/sandbox/${id}/v3/users`, {
        headers: { "api-token": "x".repeat(32) },
      });
      expect(JSON.parse(sandbox.text)).toMatchObject({ code: 400304 });
    },
  );

  it("POST /imports/new/references with a NUL in a channel id: 400 in words", async () => {
    const answer = await send("/imports/new/references", {
      method: "POST",
      headers: { "content-type": "application/json", cookie },
      body: '{"resource":"messages","channels":["a\\u0000"],"users":[]}',
    });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text)).toEqual({
      error: "The request must not contain NUL characters or unpaired surrogates.",
    });
  });
});

// --- Property-based ------------------------------------------------------------------------

// Beside the usual hostile text: React's own `$` forms, and a job id of the right shape.
const hostileString = hostileStringOf([
  "$",
  "$$",
  "$1",
  "$Q0",
  "$@0",
  "$0:x",
  "$undefined",
  "6f1c2a53-8f3e-4a55-9f0e-2d5c1b7e9a10",
]);

const value = wrongValue(hostileString);

/** Field names the console's actions and routes read, so values reach their schemas. */
const fieldName = fc.constantFrom(
  "id",
  "name",
  "appId",
  "jobId",
  "rows",
  "resource",
  "fileName",
  "columns",
  "mapping",
  "totalRows",
  "command",
  "password",
  "next",
  "url",
  "enabled",
  "enabled_events",
  "category",
  "caller_id",
  "invitee_ids",
  "eventIds",
  "get",
  "write",
  "channels",
  "users",
  "state",
  "after",
  "limit",
);

/** JSON as React's client would send it, with hostile values; or JSON no client would send. */
const argumentsText = fc.oneof(
  {
    arbitrary: fc
      .dictionary(fieldName, value, { maxKeys: 5 })
      .map((input) => JSON.stringify([input])),
    weight: 6,
  },
  { arbitrary: fc.array(value, { maxLength: 3 }).map((args) => JSON.stringify(args)), weight: 1 },
  {
    arbitrary: fc.constantFrom(
      '[{"name":"\\u0000"}]',
      '[{"id":"\\udc00"}]',
      "[",
      "[]]",
      '[{"a":1e400}]',
      "\u0000",
    ),
    weight: 1,
  },
);

describe("server actions and route handlers, fuzzed", () => {
  it("no action answers a 5xx or an unexpected error, whatever its arguments", async () => {
    const callable = actions.filter((action) => !disruptive.has(action.name));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...callable),
        argumentsText,
        fc.boolean(),
        async (action, body, signedIn) => {
          expectNoServerError(
            await callAction(action, body, { signedIn }),
            `${action.name} ${body.slice(0, 200)}`,
          );
        },
      ),
      { numRuns: runs(400), seed },
    );
  }, 300_000);

  it("no route handler answers a 5xx, whatever its path, query or body", async () => {
    const segment = fc.oneof(
      fc.constantFrom(
        "6f1c2a53-8f3e-4a55-9f0e-2d5c1b7e9a10",
        "local",
        "abc",
        "%F0%9F%98%80",
        "-1",
        "0",
      ),
      hostileString
        .filter((text) => text.isWellFormed() && !text.includes("\u0000"))
        .map(encodeURIComponent),
    );
    const query = fc
      .array(
        fc.tuple(
          fieldName,
          hostileString.filter((text) => text.isWellFormed() && !text.includes("\u0000")),
        ),
        {
          maxLength: 3,
        },
      )
      .map((pairs) => pairs.map(([name, text]) => `${name}=${encodeURIComponent(text)}`).join("&"));
    const route = fc.oneof(
      fc.constantFrom(
        "/settings/connection",
        "/webhooks/deliveries",
        "/webhooks/deliveries/counts",
        "/webhooks/settings",
        "/webhooks/health",
        "/webhooks/url-check",
      ),
      segment.map((id) => `/settings/applications/${id}/token`),
      segment.map((id) => `/imports/${id}/progress`),
      segment.map((id) => `/imports/${id}/rows`),
      segment.map((id) => `/imports/${id}/failures`),
      fc.tuple(segment, segment).map(([id, row]) => `/imports/${id}/rows/${row}/requests`),
    );
    const references = argumentsText.map((text) => text.replace(/^\[(.*)\]$/s, "$1"));
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc
            .tuple(route, query)
            .map(([at, q]) => ({ method: "GET", at: `${at}?${q}`, body: undefined })),
          references.map((body) => ({ method: "POST", at: "/imports/new/references", body })),
        ),
        fc.boolean(),
        async ({ method, at, body }, signedIn) => {
          const answer = await send(at, {
            method,
            headers: {
              ...(signedIn ? { cookie } : {}),
              "content-type": "application/json",
              "sec-fetch-dest": "empty",
            },
            body,
          });
          expect(
            answer.status,
            `${method} ${at} ${body?.slice(0, 200) ?? ""} -> ${answer.text.slice(0, 300)}`,
          ).toBeLessThan(500);
        },
      ),
      { numRuns: runs(400), seed },
    );
  }, 300_000);
});
