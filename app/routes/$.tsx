import { refusal } from "~/lib/http/responses.server";

// Any path no other route claims: a real 404 with the site's layout, for GET and POST alike.
export function loader() {
  throw refusal("not_found");
}

export function action() {
  throw refusal("not_found");
}

export default function NotFound() {
  return null;
}
