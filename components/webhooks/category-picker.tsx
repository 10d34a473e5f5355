"use client";

import { useId, useState } from "react";
import { Checkbox } from "@/components/ui/checkbox";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import {
  categoryDescription,
  filterCategories,
  groupCategories,
  nextSelectAll,
  selectionState,
  setCategories,
} from "@/lib/webhooks/category-selection";

export type CategoryPickerProps = {
  /** Every category, exactly as the platform listed them. */
  allCategories: string[];
  selected: string[];
  onChange: (next: string[]) => void;
  /** Referenced by the picker's group, so the error is read out with it. */
  errorId?: string;
};

/** One checkbox per category the platform lists, grouped by prefix, with select-all and search. */
export function CategoryPicker({
  allCategories,
  selected,
  onChange,
  errorId,
}: CategoryPickerProps) {
  const baseId = useId();
  const [search, setSearch] = useState("");
  const groups = groupCategories(allCategories);
  const shown = new Set(filterCategories(allCategories, search));
  const overall = selectionState(selected, allCategories);

  const set = (categories: string[], checked: boolean) =>
    onChange(setCategories(selected, categories, checked, allCategories));

  if (allCategories.length === 0) {
    return (
      <p className="rounded-md border border-dashed border-slate-300 p-4 text-sm text-slate-600">
        The platform listed no event categories, so there is nothing to subscribe to.
      </p>
    );
  }

  return (
    <div
      role="group"
      aria-label="Event categories"
      aria-describedby={errorId}
      className="space-y-3"
    >
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div className="flex items-center gap-2">
          <Checkbox
            id={`${baseId}-all`}
            checked={overall}
            onCheckedChange={() => set(allCategories, nextSelectAll(overall))}
          />
          <Label htmlFor={`${baseId}-all`}>Select all categories</Label>
          <span className="text-xs text-slate-500" aria-live="polite">
            {selected.filter((category) => allCategories.includes(category)).length} of{" "}
            {allCategories.length} selected
          </span>
        </div>
        <div className="w-64">
          <Label htmlFor={`${baseId}-search`} className="sr-only">
            Search categories
          </Label>
          <Input
            id={`${baseId}-search`}
            type="search"
            placeholder="Search categories"
            value={search}
            onChange={(event) => setSearch(event.target.value)}
          />
        </div>
      </div>
      {shown.size === 0 && (
        <p className="text-sm text-slate-600" role="status">
          No category matches “{search}”.
        </p>
      )}
      <div className="grid grid-cols-1 gap-4 md:grid-cols-2">
        {groups.map((group) => {
          const visible = group.categories.filter((category) => shown.has(category));
          if (visible.length === 0) return null;
          const state = selectionState(selected, group.categories);
          const groupId = `${baseId}-${group.id}`;
          return (
            <fieldset key={group.id} className="rounded-md border border-slate-200 p-3">
              <legend className="px-1 text-sm font-semibold text-slate-900">{group.label}</legend>
              <div className="mb-2 flex items-center gap-2 border-b border-slate-100 pb-2">
                <Checkbox
                  id={`${groupId}-all`}
                  checked={state}
                  onCheckedChange={() => set(group.categories, nextSelectAll(state))}
                />
                <Label htmlFor={`${groupId}-all`} className="text-slate-700">
                  Select all {group.label}
                </Label>
              </div>
              <ul className="space-y-2">
                {visible.map((category) => {
                  const id = `${groupId}-${category.replace(/[^a-z0-9_-]/gi, "-")}`;
                  return (
                    <li key={category} className="flex items-start gap-2">
                      <Checkbox
                        id={id}
                        className="mt-0.5"
                        checked={selected.includes(category)}
                        aria-describedby={`${id}-description`}
                        onCheckedChange={(checked) => set([category], checked === true)}
                      />
                      <div className="min-w-0">
                        <label htmlFor={id} className="font-mono text-sm text-slate-900">
                          {category}
                        </label>
                        <p id={`${id}-description`} className="text-xs text-slate-600">
                          {categoryDescription(category)}
                        </p>
                      </div>
                    </li>
                  );
                })}
              </ul>
            </fieldset>
          );
        })}
      </div>
    </div>
  );
}
