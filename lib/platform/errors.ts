/** Why a platform call failed, for callers that decide whether to retry. */
export type PlatformErrorKind = "http" | "timeout" | "network" | "invalid_response";

/** A failed platform call, carrying the HTTP status and the platform's error code. */
export class PlatformError extends Error {
  readonly kind: PlatformErrorKind;
  /** HTTP status; 0 when no response arrived. */
  readonly status: number;
  /** The platform's error code (e.g. 400202), when its error body said one. */
  readonly code: number | null;
  /** How long the platform asked us to wait (429), in milliseconds. */
  readonly retryAfterMs: number | null;
  /** The client operation (e.g. `users.list`) whose answer did not match its schema. */
  readonly operation: string | null;
  /** The dotted path of the unexpected field in that answer. */
  readonly field: string | null;

  constructor(options: {
    kind: PlatformErrorKind;
    message: string;
    status?: number;
    code?: number | null;
    retryAfterMs?: number | null;
    operation?: string | null;
    field?: string | null;
    cause?: unknown;
  }) {
    super(options.message, { cause: options.cause });
    this.name = "PlatformError";
    this.kind = options.kind;
    this.status = options.status ?? 0;
    this.code = options.code ?? null;
    this.retryAfterMs = options.retryAfterMs ?? null;
    this.operation = options.operation ?? null;
    this.field = options.field ?? null;
  }

  /** Timeouts, lost connections, 5xx and 429 may succeed when tried again. */
  get transient(): boolean {
    return (
      this.kind === "timeout" ||
      this.kind === "network" ||
      this.status === 429 ||
      this.status >= 500
    );
  }
}

export function isPlatformError(error: unknown, code?: number): error is PlatformError {
  return error instanceof PlatformError && (code === undefined || error.code === code);
}
