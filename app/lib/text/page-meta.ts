/** Title and description for a page; every page needs both for search engines and screen readers. */
export function pageMeta(title: string, description: string) {
  return [{ title: `${title} — Gatepost` }, { name: "description", content: description }];
}
