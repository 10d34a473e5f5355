import { distance } from "fastest-levenshtein";
import { commonLook, describeLook, misfitWords, mostlyFits, type ValueLook } from "./column-values";
import {
  importFields,
  isMetadataTarget,
  METADATA_PREFIX,
  metadataKeyOf,
  normalizeHeader,
  targetLabel,
  type ColumnMapping,
  type ImportField,
} from "./fields";
import {
  columnTransformSchema,
  isEmptyTransform,
  transformProblems,
  type ColumnTransform,
  type ColumnTransforms,
} from "./transforms";
import { isChannelResource, type ImportResource } from "./types";

/** How alike two normalized names must be (1 - edits / length) for a column to be matched by similarity. */
export const SIMILARITY_THRESHOLD = 0.75;

/** Why a column was given its field, or why the field its name suggests was passed over. */
export type ColumnSuggestion = {
  /** The field suggested, or "" for none. */
  target: string;
  /** In words, for the mapping step: "name matches", "values look like web addresses". */
  reasons: string[];
  transform?: ColumnTransform;
  /** The field the column's name is like, but whose values it does not fit. */
  passedOver?: { target: string; reason: string };
};

export type MappingSuggestion = {
  mapping: ColumnMapping;
  transforms: ColumnTransforms;
  columns: Record<string, ColumnSuggestion>;
};

type Candidate = {
  column: string;
  position: number;
  target: string;
  /** Exact key 4, alias 3, alias with a size number 2.5, metadata 2, likeness 0.75–1; values showing the field's kind add 0.01. */
  score: number;
  /** The number a column's name ends in (`image_512`): of several sizes, the largest wins. */
  size: number;
  reasons: string[];
  transform?: ColumnTransform;
  /** Matched only by likeness: a column as alike to another free field says nothing. */
  alike?: boolean;
};

/**
 * Suggests a field for each column, by name and by values. Names first: a field's own key
 * beats an alias, an alias beats a name with a size number (`profile.image_512`), which beats
 * a name that is only alike (Levenshtein similarity of at least SIMILARITY_THRESHOLD, and no
 * other field as alike); each field takes one column, the first, or of several sizes the
 * largest. Users' `metadata.<key>` columns become metadata items. A true/false column named
 * for the opposite (`deleted` for Active) is mapped inverted.
 *
 * Values then decide whether a name may suggest its field at all: `samples` holds each
 * column's first values, and a column whose values mostly do not fit the field (email
 * addresses for an image URL, JSON for a name, sentences for a channel) is never suggested
 * for it; the field it was passed over for is kept, with the reason, for the mapping step.
 */
export function suggestMapping(
  resource: ImportResource,
  columns: readonly string[],
  samples: readonly (readonly string[])[] = [],
): MappingSuggestion {
  const fields = importFields[resource];
  const result: MappingSuggestion = { mapping: {}, transforms: {}, columns: {} };
  const candidates: Candidate[] = [];
  const passedOver = new Map<string, { target: string; reason: string; score: number }>();

  for (const [position, column] of columns.entries()) {
    result.mapping[column] = "";
    result.columns[column] = { target: "", reasons: [] };
    const sample = samples[position] ?? [];
    const named = nameCandidates(resource, column, position);
    for (const candidate of named) {
      const field = fields.find((item) => item.key === candidate.target);
      if (field && !mostlyFits(field, sample, candidate.transform)) {
        const best = passedOver.get(column);
        if (!best || candidate.score > best.score) {
          passedOver.set(column, {
            target: field.key,
            score: candidate.score,
            reason: `Its name is like ${field.label}, but ${misfitWords(field, sample)}.`,
          });
        }
        continue;
      }
      if (field) {
        const evidence = valueEvidence(field, sample);
        if (evidence) {
          candidate.reasons.push(evidence);
          // Of two alike names, the one whose values show the field's kind goes first.
          candidate.score += 0.01;
        }
      }
      candidates.push(candidate);
    }
  }

  candidates.sort((a, b) => b.score - a.score || b.size - a.size || a.position - b.position);
  const taken = new Set<string>();
  for (const candidate of candidates) {
    if (result.mapping[candidate.column] || taken.has(candidate.target)) continue;
    // A name as alike to another free field as to this one says nothing.
    if (candidate.alike && tiedLikeness(candidate, candidates, taken)) continue;
    result.mapping[candidate.column] = candidate.target;
    taken.add(candidate.target);
    result.columns[candidate.column] = {
      target: candidate.target,
      reasons: candidate.reasons,
      ...(candidate.transform ? { transform: candidate.transform } : {}),
    };
    if (candidate.transform) result.transforms[candidate.column] = candidate.transform;
  }
  for (const [column, { target, reason }] of passedOver)
    if (result.mapping[column] === "") result.columns[column]!.passedOver = { target, reason };
  return result;
}

/** The fields a column's name points at, with how strongly. */
function nameCandidates(resource: ImportResource, column: string, position: number): Candidate[] {
  const candidates: Candidate[] = [];
  const name = normalizeHeader(column);
  const sized = /^(.{3,}?)(\d+)$/.exec(name);
  const add = (candidate: Omit<Candidate, "column" | "position" | "size">, size = 0) =>
    candidates.push({ column, position, size, ...candidate });
  for (const field of importFields[resource]) {
    const named = (text: string) =>
      normalizeHeader(field.key) === text
        ? 4
        : field.aliases.includes(text)
          ? 3
          : field.oppositeAliases?.includes(text)
            ? -3
            : 0;
    let match = named(name);
    let size = 0;
    if (match === 0 && sized) {
      match = named(sized[1]!);
      size = Number(sized[2]);
      if (match !== 0) match = Math.sign(match) * 2.5;
    }
    if (match < 0) {
      add(
        {
          target: field.key,
          score: -match,
          reasons: [`"${column}" means the opposite, so its values are inverted`],
          transform: { invert: true },
        },
        size,
      );
    } else if (match > 0) {
      add({ target: field.key, score: match, reasons: ["name matches"] }, size);
    } else if (name.length >= 3) {
      const score = Math.max(
        ...[field.key, ...field.aliases].map((candidate) =>
          Math.max(
            similarity(name, normalizeHeader(candidate)),
            sized ? similarity(sized[1]!, normalizeHeader(candidate)) : 0,
          ),
        ),
      );
      if (score >= SIMILARITY_THRESHOLD)
        add(
          { target: field.key, score, reasons: ["similar name"], alike: true },
          sized ? Number(sized[2]) : 0,
        );
    }
  }
  const key = resource === "users" ? metadataColumnKey(column) : null;
  if (key !== null)
    add({ target: METADATA_PREFIX + key, score: 2, reasons: ["a metadata column"] });
  return candidates;
}

function tiedLikeness(
  candidate: Candidate,
  candidates: readonly Candidate[],
  taken: ReadonlySet<string>,
): boolean {
  return candidates.some(
    (other) =>
      other !== candidate &&
      other.column === candidate.column &&
      other.alike &&
      other.score === candidate.score &&
      !taken.has(other.target),
  );
}

/** Why the values speak for the field, when they show its kind; null for plain text. */
function valueEvidence(field: ImportField, sample: readonly string[]): string | null {
  const look = commonLook(sample);
  if (look === null) return null;
  const telling: Partial<Record<ValueLook, boolean>> = {
    "web-address": field.shape === "url" || field.shape === "url-list",
    boolean: field.kind === "boolean",
    time: field.kind === "timestamp",
    number: field.kind === "integer",
    json: field.shape === "free",
  };
  return telling[look] ? describeLook(look) : null;
}

/** Maps a file's columns to fields by name and values: the mapping of `suggestMapping`. */
export function autoMap(
  resource: ImportResource,
  columns: readonly string[],
  samples: readonly (readonly string[])[] = [],
): ColumnMapping {
  return suggestMapping(resource, columns, samples).mapping;
}

/** 1 for equal names, 0 for nothing in common: edits needed over the longer name's length. */
export function similarity(a: string, b: string): number {
  const longest = Math.max(a.length, b.length);
  return longest === 0 ? 1 : 1 - distance(a, b) / longest;
}

/** The platform refuses metadata keys with a comma; the fix is renaming the key. */
export function metadataKeyFix(target: string): string | null {
  if (!isMetadataTarget(target)) return null;
  const key = metadataKeyOf(target);
  return key.includes(",") ? key.replace(/\s*,\s*/g, "_") : null;
}

/** `metadata.team`, `Metadata_Team`, `meta-team` -> `team`; anything else -> null. */
export function metadataColumnKey(column: string): string | null {
  const match = /^\s*meta(?:data)?\s*[._\-:\s]\s*(.+?)\s*$/i.exec(column);
  return match ? match[1]! : null;
}

/** Why a mapping cannot be used yet, in words for the mapping screen; empty when it can. */
export function mappingProblems(
  resource: ImportResource,
  columns: readonly string[],
  mapping: ColumnMapping,
  transforms: ColumnTransforms = {},
): string[] {
  const problems: string[] = [];
  const columnsOf = new Map<string, string[]>();
  for (const column of columns) {
    const target = mapping[column];
    if (!target) continue;
    columnsOf.set(target, [...(columnsOf.get(target) ?? []), column]);
  }
  for (const field of importFields[resource]) {
    if (field.required && !columnsOf.has(field.key))
      problems.push(`Choose the column that holds the ${field.label.toLowerCase()}.`);
  }
  if (isChannelResource(resource) && !columnsOf.has("channel_url") && !columnsOf.has("source_id")) {
    problems.push(
      "Choose the column that holds the channel URL or the source id: every channel needs one.",
    );
  }
  for (const [target, targetColumns] of columnsOf) {
    if (targetColumns.length > 1) {
      problems.push(
        `${targetLabel(resource, target)} is chosen for ${targetColumns.map((column) => `"${column}"`).join(" and ")}: choose it for one column.`,
      );
    }
    if (isMetadataTarget(target) && metadataKeyOf(target).trim() === "") {
      problems.push(`Give the metadata key of column "${targetColumns[0]}".`);
    }
    const renamed = metadataKeyFix(target);
    if (renamed !== null) {
      problems.push(
        `The metadata key "${metadataKeyOf(target)}" of column "${targetColumns[0]}" has a comma, which the platform does not accept in a key: rename it (for example "${renamed}").`,
      );
    }
  }
  problems.push(...transformProblems(resource, columns, mapping, transforms));
  return problems;
}

/** Where a mapping is remembered: the resource and the file's headers, as matching sees them. */
export function mappingMemoryKey(resource: ImportResource, columns: readonly string[]): string {
  return `switchboard:import-mapping:v1:${resource}:${columns.map(normalizeHeader).join("|")}`;
}

/** A mapping and its transforms, remembered for a file with the same headers, when they still fit the resource. */
export function recallMapping(
  storage: Pick<Storage, "getItem">,
  resource: ImportResource,
  columns: readonly string[],
): { mapping: ColumnMapping; transforms: ColumnTransforms } | null {
  let stored: unknown;
  try {
    stored = JSON.parse(storage.getItem(mappingMemoryKey(resource, columns)) ?? "null");
  } catch {
    return null;
  }
  if (!Array.isArray(stored) || stored.length !== columns.length) return null;
  const known = new Set(importFields[resource].map((field) => field.key));
  const mapping: ColumnMapping = {};
  const transforms: ColumnTransforms = {};
  for (const [position, column] of columns.entries()) {
    // A column's entry is its target, or [target, transform] when its values are transformed.
    const entry: unknown = stored[position];
    const [target, transform] = Array.isArray(entry) ? entry : [entry];
    if (typeof target !== "string") return null;
    mapping[column] =
      target === "" || known.has(target) || (resource === "users" && isMetadataTarget(target))
        ? target
        : "";
    const parsed = columnTransformSchema.safeParse(transform);
    if (mapping[column] !== "" && transform !== undefined && parsed.success)
      transforms[column] = parsed.data;
  }
  // A transform that no longer fits its field (the fields changed) is dropped, not kept broken.
  for (const column of Object.keys(transforms))
    if (transformProblems(resource, columns, mapping, { [column]: transforms[column]! }).length > 0)
      delete transforms[column];
  return { mapping, transforms };
}

/** Stored by column position, since the key already pins the headers (up to case and spacing). */
export function rememberMapping(
  storage: Pick<Storage, "setItem">,
  resource: ImportResource,
  columns: readonly string[],
  mapping: ColumnMapping,
  transforms: ColumnTransforms = {},
): void {
  try {
    storage.setItem(
      mappingMemoryKey(resource, columns),
      JSON.stringify(
        columns.map((column) => {
          const target = mapping[column] ?? "";
          const transform = Object.hasOwn(transforms, column) ? transforms[column] : undefined;
          return transform && !isEmptyTransform(transform) ? [target, transform] : target;
        }),
      ),
    );
  } catch {
    // Full or disabled storage only costs the administrator a re-mapping next time.
  }
}
