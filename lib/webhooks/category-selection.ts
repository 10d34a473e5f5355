import { webhookCategoryDescriptions, type WebhookCategory } from "@/lib/schemas/webhooks";

export type CategoryGroup = {
  id: string;
  label: string;
  categories: string[];
};

/** Group labels by category prefix; a prefix the console does not know gets its own group. */
const groupLabels: Record<string, string> = {
  direct_call: "Direct calls",
  room: "Group calls",
};

/**
 * Groups the categories the platform listed by their prefix (`direct_call:`, `room:`),
 * keeping the platform's order inside each group and the order of first appearance between
 * groups. Never a hard-coded list: a category added by the platform shows up on its own.
 */
export function groupCategories(allCategories: readonly string[]): CategoryGroup[] {
  const groups = new Map<string, CategoryGroup>();
  for (const category of allCategories) {
    const prefix = category.includes(":") ? category.slice(0, category.indexOf(":")) : category;
    let group = groups.get(prefix);
    if (!group) {
      group = { id: prefix, label: groupLabels[prefix] ?? `Other (${prefix})`, categories: [] };
      groups.set(prefix, group);
    }
    group.categories.push(category);
  }
  return [...groups.values()];
}

export function categoryDescription(category: string): string {
  return (
    webhookCategoryDescriptions[category as WebhookCategory] ??
    "A category this console has no description for yet (the platform added it)."
  );
}

export type SelectionState = boolean | "indeterminate";

/** Tri-state of a select-all box over `categories`: all, none, or some chosen. */
export function selectionState(
  selected: readonly string[],
  categories: readonly string[],
): SelectionState {
  if (categories.length === 0) return false;
  const count = categories.filter((category) => selected.includes(category)).length;
  if (count === 0) return false;
  return count === categories.length ? true : "indeterminate";
}

/**
 * Selects or clears `categories` inside `selected`. Anything else stays as it was; the
 * result follows `order` (the platform's list) so the PUT body reads like the GET answer.
 */
export function setCategories(
  selected: readonly string[],
  categories: readonly string[],
  checked: boolean,
  order: readonly string[],
): string[] {
  const next = new Set(selected);
  for (const category of categories) {
    if (checked) next.add(category);
    else next.delete(category);
  }
  return [
    ...order.filter((category) => next.has(category)),
    ...[...next].filter((category) => !order.includes(category)),
  ];
}

/** A click on a tri-state box: partly or not selected becomes all, all becomes none. */
export function nextSelectAll(state: SelectionState): boolean {
  return state !== true;
}

/** Categories whose name or description contains every word of the search, case-insensitively. */
export function filterCategories(categories: readonly string[], search: string): string[] {
  const words = search.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return [...categories];
  return categories.filter((category) => {
    const text = `${category} ${categoryDescription(category)}`.toLowerCase();
    return words.every((word) => text.includes(word));
  });
}
