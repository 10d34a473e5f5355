export type FieldErrorProps = {
  /** Referenced by the field's aria-describedby. */
  id: string;
  message: string | undefined;
};

/** A field's error text; always rendered so aria-describedby points at something. */
export function FieldError({ id, message }: FieldErrorProps) {
  return (
    <p id={id} className="min-h-5 text-sm text-red-700" aria-live="polite">
      {message}
    </p>
  );
}
