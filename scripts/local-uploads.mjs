// `npm run uploads:local [-- get <key> <file>] [-- --persist-to <dir>]`: lists the local R2 bucket, which wrangler
// cannot, through getPlatformProxy over the same state.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { getPlatformProxy } from "wrangler";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** The arguments: a command (list, get) with its operands, and --persist-to. */
export function parseArgs(argv) {
  const args = [...argv];
  const at = args.indexOf("--persist-to");
  const persistTo = at >= 0 ? args.splice(at, 2)[1] : undefined;
  const [command = "list", ...operands] = args;
  if (!["list", "get"].includes(command) || (command === "get" && operands.length !== 2)) {
    throw new Error("usage: npm run uploads:local [-- list | -- get <key> <file>] [--persist-to <dir>]");
  }
  return { command, operands, persistTo };
}

/** One line per object, oldest key first (keys are time-ordered ids). */
export function formatObjects(objects) {
  if (objects.length === 0) return "The local bucket is empty.";
  const rows = objects.map((o) => [
    o.key,
    String(o.size),
    o.uploaded.toISOString(),
    o.customMetadata?.submission ?? "-",
    o.customMetadata?.field ?? "-",
  ]);
  const header = ["key", "bytes", "uploaded", "submission", "field"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  return [header, ...rows]
    .map((r) =>
      r
        .map((cell, i) => cell.padEnd(widths[i]))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

async function main() {
  const { command, operands, persistTo } = parseArgs(process.argv.slice(2));
  const persist = { path: path.join(persistTo ? path.resolve(persistTo) : path.join(ROOT, ".wrangler", "state"), "v3") };
  const proxy = await getPlatformProxy({ configPath: path.join(ROOT, "wrangler.toml"), persist, remoteBindings: false });
  try {
    const bucket = proxy.env.UPLOADS;
    if (command === "get") {
      const [key, file] = operands;
      const object = await bucket.get(key);
      if (!object) throw new Error(`no object ${key} in the local bucket`);
      writeFileSync(file, Buffer.from(await object.arrayBuffer()));
      console.log(`${key} → ${file} (${object.size} bytes)`);
      return;
    }
    const objects = [];
    let cursor;
    do {
      const page = await bucket.list({ cursor, include: ["customMetadata"] });
      objects.push(...page.objects);
      cursor = page.truncated ? page.cursor : undefined;
    } while (cursor);
    console.log(formatObjects(objects));
  } finally {
    await proxy.dispose();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  main().catch((error) => {
    console.error(`✖ ${error.message}`);
    process.exit(1);
  });
}
