/** Error codes of the platform interface (section 7) and the sandbox contract. */
export const ErrorCode = {
  wrongType: 400100,
  missing: 400105,
  tooLong: 400110,
  invalidValue: 400111,
  /** Sending or reacting in a group channel the user is not a member of. */
  notAMember: 400108,
  notFound: 400201,
  alreadyExists: 400202,
  /** Sending or reacting as a deactivated user. */
  deactivatedUser: 400300,
  noSuchApplication: 400304,
  unauthorized: 400401,
  malformedBody: 400403,
  noSuchRoute: 400404,
  rateLimited: 500910,
  internal: 500901,
  /** Sending to a frozen channel as a user who is not its operator. */
  channelFrozen: 900050,
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

const statusByCode: Record<ErrorCode, number> = {
  400100: 400,
  400105: 400,
  400110: 400,
  400111: 400,
  400108: 400,
  400201: 400,
  400202: 400,
  400300: 400,
  400304: 404,
  400401: 401,
  400403: 400,
  400404: 404,
  500910: 429,
  500901: 500,
  900050: 400,
};

export type PlatformErrorBody = { message: string; code: number; error: true };

/** An error the sandbox answers with the platform's error body. */
export class SandboxError extends Error {
  readonly code: ErrorCode;
  readonly status: number;

  constructor(code: ErrorCode, message: string, status?: number) {
    super(message);
    this.name = "SandboxError";
    this.code = code;
    this.status = status ?? statusByCode[code];
  }

  toBody(): PlatformErrorBody {
    return { message: this.message, code: this.code, error: true };
  }
}

export function errorResponse(error: SandboxError, headers?: HeadersInit): Response {
  return Response.json(error.toBody(), { status: error.status, headers });
}
