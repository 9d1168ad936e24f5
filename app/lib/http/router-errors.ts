// The codes for failures nobody refused on purpose: every page's error boundary needs only these four. Client-safe.

export const ROUTER_ERRORS = {
  not_found: { status: 404, message: "There is nothing at this address." },
  method_not_allowed: { status: 405, message: "This address does not accept that method." },
  malformed_body: { status: 400, message: "What you sent could not be read." },
  internal_error: { status: 500, message: "Something went wrong on our side." },
} as const;
