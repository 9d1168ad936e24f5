// The catalogue's codes for failures nobody refused on purpose: an unknown path or method (the router
// says so itself), an unreadable request, a bug. The error boundary on every page needs only these
// (a refusal's own message comes in its body), so pages ship these four, not the whole catalogue
// (errors.ts includes them). Client-safe.

export const ROUTER_ERRORS = {
  not_found: { status: 404, message: "There is nothing at this address." },
  method_not_allowed: { status: 405, message: "This address does not accept that method." },
  malformed_body: { status: 400, message: "What you sent could not be read." },
  internal_error: { status: 500, message: "Something went wrong on our side." },
} as const;
