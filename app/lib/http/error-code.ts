import { isRouteErrorResponse } from "@remix-run/react";
import type { ErrorCode } from "~/lib/http/errors";
import { ROUTER_ERRORS } from "~/lib/http/router-errors";
import type { RefusalPage } from "~/lib/text/refusal-words";

// Which catalogue code a route error stands for, and what the page says of it, so page and header agree.
// Client-safe and light: pages need only the router's four codes, not the whole catalogue.

/** The fallback for every failure nobody refused on purpose: a bug, or a 5xx without a code. */
export const FALLBACK_ERROR_CODE = "internal_error" satisfies ErrorCode;

const CODE_SHAPE = /^[a-z][a-z0-9_]{0,63}$/;

function bodyOf(error: unknown): { code?: unknown; message?: unknown; page?: unknown } | null {
  if (!isRouteErrorResponse(error)) return null;
  const data = error.data as unknown;
  return typeof data === "object" && data !== null ? (data as { code?: unknown; message?: unknown; page?: unknown }) : null;
}

/** A refusal's page in the visitor's language, when it came with one (refusal() in responses.server.ts). */
export function refusalPageOf(error: unknown): RefusalPage | null {
  const page = bodyOf(error)?.page as Partial<RefusalPage> | undefined;
  return typeof page?.lang === "string" && typeof page.texts === "object" && page.texts !== null ? (page as RefusalPage) : null;
}

/** The code of a route error: its own, else one from its status; `isKnown` is the catalogue's check where at hand. Never throws. */
export function errorCodeOf(error: unknown, isKnown: (code: string) => boolean = (code) => CODE_SHAPE.test(code)): ErrorCode {
  if (!isRouteErrorResponse(error)) return FALLBACK_ERROR_CODE;
  const code = bodyOf(error)?.code;
  if (typeof code === "string" && isKnown(code)) return code as ErrorCode;
  // Refusals the router makes itself (an unknown path, a method no route takes) have no body code.
  if (error.status === 404) return "not_found";
  if (error.status === 405) return "method_not_allowed";
  return error.status >= 500 ? FALLBACK_ERROR_CODE : "malformed_body";
}

/** What the page says of a route error: a refusal's own catalogue message, else its router code's. */
export function errorMessageOf(error: unknown): string {
  const body = bodyOf(error);
  if (typeof body?.code === "string" && typeof body.message === "string") return body.message;
  const code = errorCodeOf(error);
  return Object.hasOwn(ROUTER_ERRORS, code)
    ? ROUTER_ERRORS[code as keyof typeof ROUTER_ERRORS].message
    : ROUTER_ERRORS.internal_error.message;
}
