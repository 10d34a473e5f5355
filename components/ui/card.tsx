import type { ReactNode } from "react";
import { classNames } from "./class-names";

export type CardProps = {
  /** The card's heading; also its accessible name when the card is a section. */
  title: string;
  description?: ReactNode;
  /** Buttons beside the title. */
  actions?: ReactNode;
  children?: ReactNode;
  className?: string;
  headingLevel?: 2 | 3;
};

export function Card({
  title,
  description,
  actions,
  children,
  className,
  headingLevel = 2,
}: CardProps) {
  const Heading = headingLevel === 2 ? "h2" : "h3";
  return (
    <section
      aria-label={title}
      className={classNames("rounded-lg border border-slate-200 bg-white shadow-sm", className)}
    >
      <header className="flex flex-wrap items-start justify-between gap-3 border-b border-slate-100 px-5 py-4">
        <div className="min-w-0">
          <Heading className="text-base font-semibold text-slate-900">{title}</Heading>
          {description && <div className="mt-1 text-sm text-slate-600">{description}</div>}
        </div>
        {actions && <div className="flex shrink-0 items-center gap-2">{actions}</div>}
      </header>
      {children && <div className="px-5 py-4">{children}</div>}
    </section>
  );
}
