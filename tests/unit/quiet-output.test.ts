import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import type { Rollup, UserConfig } from "vite";
import viteConfig from "../../vite.config";
import { hideWorkerdInfo } from "../support/workerd-log-level";

// A passing run prints nothing a person must read: the build's warnings that say nothing to act on are
// quiet by their cause, any other warning still shows; workerd's info records stay out of the workers
// layer's output, its warnings and errors do not.

/** The warnings the build shows of `warnings`, client or server. */
async function shownBy(ssr: boolean, warnings: Rollup.RollupLog[]): Promise<Rollup.RollupLog[]> {
  const config = (await (viteConfig as (env: object) => UserConfig | Promise<UserConfig>)({
    command: "build",
    mode: "production",
    isSsrBuild: ssr,
  })) as UserConfig;
  const onwarn = config.build?.rollupOptions?.onwarn;
  if (!onwarn) throw new Error("vite.config.ts sets no rollupOptions.onwarn");
  const shown: Rollup.RollupLog[] = [];
  for (const warning of warnings) onwarn(warning as Rollup.RollupLog, (w) => void shown.push(w as Rollup.RollupLog));
  return shown;
}

const EMPTY_ROUTE_CHUNK = { code: "EMPTY_BUNDLE", message: 'Generated an empty chunk: "healthz".', names: ["healthz"] };
const SPLIT_IN_CLIENT = {
  code: "PLUGIN_WARNING",
  plugin: "vite:reporter",
  message:
    "/app/components/captcha-widget.tsx is dynamically imported by /app/routes/admin_.login.tsx but also statically imported by /app/routes/f.$formId.tsx, dynamic import will not move module into another chunk.",
};
const OTHER = { code: "CIRCULAR_DEPENDENCY", message: "Circular dependency: a.ts -> b.ts -> a.ts" };

describe("the build's warnings", () => {
  it("leave out a resource route's empty client chunk, and show every other warning", async () => {
    expect(await shownBy(false, [EMPTY_ROUTE_CHUNK, OTHER])).toEqual([OTHER]);
    expect(await shownBy(true, [EMPTY_ROUTE_CHUNK])).toEqual([EMPTY_ROUTE_CHUNK]);
  });

  it("leave out the widget's on-demand import in the one-file server bundle only", async () => {
    expect(await shownBy(true, [SPLIT_IN_CLIENT])).toEqual([]);
    expect(await shownBy(false, [SPLIT_IN_CLIENT])).toEqual([SPLIT_IN_CLIENT]);
  });
});

describe("workerd's output in the workers layer", () => {
  it("keeps warnings and errors and drops info records with their stack line", () => {
    const stream = new PassThrough() as unknown as NodeJS.WriteStream;
    let written = "";
    stream.write = ((chunk: string) => ((written += chunk), true)) as typeof stream.write;
    const undo = hideWorkerdInfo(stream);
    stream.write(
      "workerd/jsg/util.c++:407: info: exception = kj/async-io-unix.c++:1538: disconnected: connect(): Connection refused\nstack: /bin/workerd@4f45f62\n",
    );
    stream.write("workerd/io/worker.c++:2441: info: uncaught exception; source = Uncaught (in promise)\n");
    stream.write("stack: /bin/workerd@2cfbe50\nworkerd/server/server.c++:1: error: something a person must read\n");
    stream.write("a test's own line\n");
    undo();
    stream.write("after\n");
    expect(written).toBe("workerd/server/server.c++:1: error: something a person must read\na test's own line\nafter\n");
  });
});
