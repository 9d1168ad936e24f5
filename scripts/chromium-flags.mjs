// The flags Debian's Chromium needs on these machines (no sandbox in the container, nothing that
// reaches the internet), shared by the browser tests and the Lighthouse runner.
export const CHROMIUM_FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-quic",
];
