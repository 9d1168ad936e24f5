import type { MetaFunction } from "@remix-run/cloudflare";

export const meta: MetaFunction = () => [{ title: "Baseline" }, { name: "description", content: "A bare Remix Cloudflare app." }];

export default function Index() {
  return (
    <main>
      <h1>Welcome to Remix</h1>
      <p>A bare app to measure against.</p>
    </main>
  );
}
