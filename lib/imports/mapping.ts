import {
  importFields,
  isMetadataTarget,
  METADATA_PREFIX,
  metadataKeyOf,
  normalizeHeader,
  targetLabel,
  type ColumnMapping,
} from "./fields";
import { distance } from "fastest-levenshtein";
import { isChannelResource, type ImportResource } from "./types";

/** How alike two normalized names must be (1 - edits / length) for a column to be matched by similarity. */
export const SIMILARITY_THRESHOLD = 0.75;

/**
 * Maps a file's columns to fields by name: case, spaces, `_`, `-` and `.` do not matter, a
 * field's own key beats an alias, and each field takes one column (the first that matches).
 * Users' `metadata.<key>` (or `meta.<key>`) columns become metadata items. Columns still
 * unmatched then take the field whose key or alias is most alike (a misspelt `nicknmae`), when
 * the likeness passes SIMILARITY_THRESHOLD and no other field is as alike.
 */
export function autoMap(resource: ImportResource, columns: readonly string[]): ColumnMapping {
  const mapping: ColumnMapping = {};
  const taken = new Set<string>();
  const fields = importFields[resource];
  const byKey = new Map(fields.map((field) => [normalizeHeader(field.key), field.key]));
  const byAlias = new Map<string, string>();
  for (const field of fields)
    for (const alias of field.aliases) if (!byAlias.has(alias)) byAlias.set(alias, field.key);

  for (const column of columns) mapping[column] = "";
  // Exact names first, so a `user_id` column wins over an `id` column whatever their order.
  for (const pass of [byKey, byAlias]) {
    for (const column of columns) {
      if (mapping[column]) continue;
      const target = pass.get(normalizeHeader(column));
      if (target && !taken.has(target)) {
        mapping[column] = target;
        taken.add(target);
      }
    }
  }
  if (resource === "users") {
    for (const column of columns) {
      const key = metadataColumnKey(column);
      if (mapping[column] || key === null || taken.has(METADATA_PREFIX + key)) continue;
      mapping[column] = METADATA_PREFIX + key;
      taken.add(METADATA_PREFIX + key);
    }
  }
  for (const column of columns) {
    if (mapping[column]) continue;
    const target = mostAlike(resource, column, taken);
    if (target) {
      mapping[column] = target;
      taken.add(target);
    }
  }
  return mapping;
}

/** 1 for equal names, 0 for nothing in common: edits needed over the longer name's length. */
export function similarity(a: string, b: string): number {
  const longest = Math.max(a.length, b.length);
  return longest === 0 ? 1 : 1 - distance(a, b) / longest;
}

function mostAlike(
  resource: ImportResource,
  column: string,
  taken: ReadonlySet<string>,
): string | null {
  const name = normalizeHeader(column);
  if (name.length < 3) return null;
  let best: { target: string; score: number } | null = null;
  let tied = false;
  for (const field of importFields[resource]) {
    if (taken.has(field.key)) continue;
    const score = Math.max(
      ...[field.key, ...field.aliases].map((candidate) =>
        similarity(name, normalizeHeader(candidate)),
      ),
    );
    if (score < SIMILARITY_THRESHOLD) continue;
    if (!best || score > best.score) {
      best = { target: field.key, score };
      tied = false;
    } else if (score === best.score) tied = true;
  }
  return best && !tied ? best.target : null;
}

/** How a column came to its field, for the mapping screen: by name or alias, or only by likeness. */
export function matchKind(
  resource: ImportResource,
  column: string,
  target: string,
): "name" | "similar" | null {
  const field = importFields[resource].find((item) => item.key === target);
  if (!field) return null;
  const name = normalizeHeader(column);
  return normalizeHeader(field.key) === name || field.aliases.includes(name) ? "name" : "similar";
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
  return problems;
}

/** Where a mapping is remembered: the resource and the file's headers, as matching sees them. */
export function mappingMemoryKey(resource: ImportResource, columns: readonly string[]): string {
  return `switchboard:import-mapping:v1:${resource}:${columns.map(normalizeHeader).join("|")}`;
}

/** A mapping remembered for a file with the same headers, when it still fits the resource. */
export function recallMapping(
  storage: Pick<Storage, "getItem">,
  resource: ImportResource,
  columns: readonly string[],
): ColumnMapping | null {
  let stored: unknown;
  try {
    stored = JSON.parse(storage.getItem(mappingMemoryKey(resource, columns)) ?? "null");
  } catch {
    return null;
  }
  if (!Array.isArray(stored) || stored.length !== columns.length) return null;
  const known = new Set(importFields[resource].map((field) => field.key));
  const mapping: ColumnMapping = {};
  for (const [position, column] of columns.entries()) {
    const target = stored[position];
    if (typeof target !== "string") return null;
    mapping[column] =
      target === "" || known.has(target) || (resource === "users" && isMetadataTarget(target))
        ? target
        : "";
  }
  return mapping;
}

/** Stored by column position, since the key already pins the headers (up to case and spacing). */
export function rememberMapping(
  storage: Pick<Storage, "setItem">,
  resource: ImportResource,
  columns: readonly string[],
  mapping: ColumnMapping,
): void {
  try {
    storage.setItem(
      mappingMemoryKey(resource, columns),
      JSON.stringify(columns.map((column) => mapping[column] ?? "")),
    );
  } catch {
    // Full or disabled storage only costs the administrator a re-mapping next time.
  }
}
