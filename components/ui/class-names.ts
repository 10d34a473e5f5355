/** Joins the truthy class names: enough for our variants without another dependency. */
export function classNames(...names: Array<string | false | null | undefined>): string {
  return names.filter(Boolean).join(" ");
}

/** One focus ring for every interactive element, visible on keyboard focus only. */
export const focusRing =
  "outline-none focus-visible:ring-2 focus-visible:ring-indigo-500 focus-visible:ring-offset-2 focus-visible:ring-offset-white";
