/**
 * Writes tests/fixtures/platform-openapi.json: the parts of the real platform's OpenAPI
 * description that the sandbox contract lists (paths, methods, parameters, request and
 * response schemas), without descriptions and examples. Maintenance only, when the vendor's
 * description changes:
 *
 *   git -C <clone of sendbird/sendbird-platform-sdk-java> show <commit>:api/openapi.yaml > /tmp/openapi.yaml
 *   npx js-yaml /tmp/openapi.yaml > /tmp/openapi.json
 *   npx tsx tests/scripts/trim-openapi.ts /tmp/openapi.json <commit>
 */
import fs from "node:fs";
import path from "node:path";
import { contractOperations } from "../support/openapi-check";

type Json = Record<string, unknown>;

const [source, commit] = process.argv.slice(2);
if (!source || !commit) {
  console.error("usage: tsx tests/scripts/trim-openapi.ts <openapi.json> <commit>");
  process.exit(2);
}
const document = JSON.parse(fs.readFileSync(source, "utf8")) as {
  paths: Record<string, Record<string, Json>>;
  components: { schemas: Record<string, Json> };
};

const kept = new Set([
  "type",
  "format",
  "enum",
  "nullable",
  "items",
  "properties",
  "required",
  "allOf",
  "oneOf",
  "anyOf",
  "$ref",
  "maxLength",
  "default",
]);
const schemas: Record<string, unknown> = {};

function trim(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(trim);
  if (value === null || typeof value !== "object") return value;
  const out: Json = {};
  for (const [key, inner] of Object.entries(value)) {
    if (key === "properties") {
      out.properties = Object.fromEntries(
        Object.entries(inner as Json).map(([name, schema]) => [name, trim(schema)]),
      );
    } else if (kept.has(key)) {
      out[key] = trim(inner);
      if (key === "$ref") keep(String(inner));
    }
  }
  return out;
}

function keep(ref: string): void {
  const name = ref.replace("#/components/schemas/", "");
  if (name in schemas) return;
  schemas[name] = null;
  schemas[name] = trim(document.components.schemas[name]);
}

const paths: Record<string, Record<string, unknown>> = {};
for (const { method, path: route, undescribed } of contractOperations) {
  if (undescribed !== undefined) continue;
  const operation = document.paths[route]?.[method];
  if (!operation) throw new Error(`${method.toUpperCase()} ${route} is not in the description`);
  const parameters = (operation.parameters as Json[] | undefined) ?? [];
  const body = (
    operation.requestBody as { content?: Record<string, { schema: unknown }> } | undefined
  )?.content;
  const answer = (
    operation.responses as Record<string, { content?: Record<string, { schema: unknown }> }>
  )["200"];
  paths[route] ??= {};
  paths[route][method] = {
    operationId: operation.operationId,
    parameters: parameters
      .filter((parameter) => parameter.in !== "header")
      .map((parameter) => ({
        name: parameter.name,
        in: parameter.in,
        required: parameter.required ?? false,
        schema: trim(parameter.schema),
      })),
    ...(body && {
      requestBody: Object.fromEntries(
        Object.entries(body).map(([type, { schema }]) => [type, trim(schema)]),
      ),
    }),
    response: trim(answer?.content?.["application/json"]?.schema ?? {}),
  };
}

const trimmed = {
  "x-source": {
    repository: "https://github.com/sendbird/sendbird-platform-sdk-java",
    path: "api/openapi.yaml",
    commit,
    note: "Only the operations of the sandbox contract, without descriptions and examples; written by tests/scripts/trim-openapi.ts.",
  },
  paths,
  components: { schemas },
};
const target = path.join(import.meta.dirname, "../fixtures/platform-openapi.json");
fs.writeFileSync(target, `${JSON.stringify(trimmed, null, 2)}\n`);
console.log(
  `wrote ${target}: ${Object.keys(paths).length} paths, ${Object.keys(schemas).length} schemas`,
);
