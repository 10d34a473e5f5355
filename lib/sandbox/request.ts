import {
  getMultipartBoundary,
  MaxPartsExceededError,
  parseMultipartStream,
} from "@remix-run/multipart-parser";
import type { Context } from "hono";
import type { z } from "zod";
import {
  collectFormFields,
  formFieldsToInput,
  type FormFieldKinds,
} from "@/lib/schemas/form-fields";
import { firstPlatformIssue } from "@/lib/schemas/platform-errors";
import { findUnstorableText } from "@/lib/schemas/text-values";
import { ErrorCode, SandboxError } from "./errors";

/** Reads the body as a JSON object, or fails with 400403 as the contract says. */
export async function readJsonObject(c: Context): Promise<Record<string, unknown>> {
  return parseJsonObject(decodeUtf8(await c.req.arrayBuffer(), "The request body"));
}

// `fatal`: bytes that are not UTF-8 (CESU-8 surrogate halves included) would otherwise decode
// to U+FFFD and be stored as that. A body's leading byte order mark is dropped, as Request.text()
// does; a form field's is part of its value.
const bodyDecoder = new TextDecoder("utf-8", { fatal: true });
const fieldDecoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Text sent as UTF-8, or 400111 when the bytes are not UTF-8 (`what` names them). */
export function decodeUtf8(bytes: ArrayBuffer | Uint8Array, what: string, keepBom = false): string {
  try {
    return (keepBom ? fieldDecoder : bodyDecoder).decode(bytes);
  } catch {
    throw new SandboxError(ErrorCode.invalidValue, `${what} is not valid UTF-8.`);
  }
}

/** A request body's text as a JSON object holding only storable strings (see refuseUnstorable). */
export function parseJsonObject(text: string): Record<string, unknown> {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new SandboxError(ErrorCode.malformedBody, "The request body is not valid JSON.");
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw new SandboxError(ErrorCode.malformedBody, "The request body must be a JSON object.");
  }
  // Only a text holding a NUL, a surrogate or a \u escape of either can parse to a string that
  // cannot be stored; walking every string costs a 100-message migration about 60 µs.
  return mayHoldUnstorable.test(text)
    ? refuseUnstorable(body as Record<string, unknown>)
    : (body as Record<string, unknown>);
}

const mayHoldUnstorable = /[\u0000\uD800-\uDFFF]|\\u(?:0000|[dD][89a-fA-F])/;

/**
 * Refuses (400111, nothing stored) a body holding a string PostgreSQL cannot store as it is:
 * NUL, or an unpaired surrogate that would come back as U+FFFD (sandbox contract, "Hostile input").
 */
export function refuseUnstorable<T>(body: T): T {
  const found = findUnstorableText(body);
  if (found !== undefined) {
    throw new SandboxError(
      ErrorCode.invalidValue,
      `The request body holds a string with a NUL character or an unpaired surrogate: ${JSON.stringify(found.slice(0, 40))}.`,
    );
  }
  return body;
}

/** Validates input against a shared schema; the first problem becomes the platform's error. */
export function parseWith<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = firstPlatformIssue(result.error, input);
  throw new SandboxError(issue.code, issue.message);
}

/** More fields and files than any operation takes, far more. */
const maxFormParts = 1000;

/**
 * Reads a multipart/form-data body: text fields decoded as strict UTF-8 (see decodeUtf8; a
 * leading U+FEFF is kept, as in JSON), files as File. The body's size is limited before this
 * (limitBody). A body that is not multipart as it says: 400403.
 */
export async function readForm(c: Context): Promise<FormData> {
  const boundary = getMultipartBoundary(c.req.header("content-type") ?? "");
  const body = c.req.raw.body;
  if (!boundary || !body) throw unreadableForm();
  const form = new FormData();
  try {
    const parts = parseMultipartStream(body, {
      boundary,
      maxParts: maxFormParts,
      maxFileSize: Infinity,
      maxTotalSize: Infinity,
    });
    for await (const part of parts) {
      const { name, filename } = part;
      if (name === undefined) throw unreadableForm();
      // A file is a part with a file name (RFC 7578), as Request.formData() reads it; an empty
      // file input (an empty file name, no bytes) is an empty field, as if none was chosen.
      if (filename !== undefined && (filename !== "" || part.size > 0)) {
        form.append(name, new File([part.arrayBuffer], filename, { type: part.mediaType ?? "" }));
      } else {
        form.append(name, decodeUtf8(part.bytes, `The multipart field "${name}"`, true));
      }
    }
  } catch (error) {
    if (error instanceof SandboxError) throw error;
    if (error instanceof MaxPartsExceededError) {
      const message = `The multipart body has more than ${maxFormParts} fields.`;
      throw new SandboxError(ErrorCode.invalidValue, message);
    }
    if ((error as { code?: unknown }).code === "ERR_ENCODING_INVALID_ENCODED_DATA") {
      throw new SandboxError(
        ErrorCode.invalidValue,
        "A multipart part's headers are not valid UTF-8.",
      );
    }
    throw unreadableForm();
  }
  return form;
}

function unreadableForm(): SandboxError {
  return new SandboxError(ErrorCode.malformedBody, "The multipart body could not be read.");
}

/**
 * A form's text fields as a schema's input (see formFieldsToInput), refused (400111) when one
 * cannot be stored. A field sent twice where one value is expected stays a list, which the
 * schema refuses as the wrong type (400100).
 */
export function formInput(form: FormData, kinds: FormFieldKinds): Record<string, unknown> {
  return refuseUnstorable(formFieldsToInput(collectFormFields(form.entries()), kinds));
}

/** A form field's value (a file, say); a list when it was sent more than once, as formInput. */
export function formValue(form: FormData, name: string): unknown {
  const values = form.getAll(name);
  return values.length > 1 ? values : values[0];
}

export function isMultipart(c: Context): boolean {
  return (c.req.header("content-type") ?? "").toLowerCase().startsWith("multipart/form-data");
}
