import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
// @ts-expect-error - plain ESM helper
import { freePort } from "../../scripts/process-group.mjs";

// `npm run start:offline` in a scratch copy of the working tree, as a fresh clone meets it: its own
// .wrangler state (no forms, no D1 rows), node_modules shared. Used by the tests that walk a new
// user's path (add-a-form, newcomer).

const ROOT = path.resolve(__dirname, "../..");

/** A copy of the working tree as git sees it (tracked and new files), sharing node_modules. */
export function copyWorkingTree(prefix: string): string {
  const scratch = mkdtempSync(path.join(tmpdir(), prefix));
  const files = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "-z"], { cwd: ROOT, encoding: "utf8" })
    .split("\0")
    .filter(Boolean);
  for (const file of files) {
    mkdirSync(path.dirname(path.join(scratch, file)), { recursive: true });
    try {
      cpSync(path.join(ROOT, file), path.join(scratch, file));
    } catch {
      // a file deleted in the working tree but not yet in the index
    }
  }
  symlinkSync(path.join(ROOT, "node_modules"), path.join(scratch, "node_modules"));
  return scratch;
}

export interface ScratchStart {
  scratch: string;
  /** Everything npm start printed so far. */
  output(): string;
  /** Resolves once `pattern` appears in the output (or rejects after `ms`, with the output and log). */
  waitForOutput(pattern: RegExp, ms: number): Promise<RegExpMatchArray>;
  child(): ChildProcess | undefined;
  /** Ctrl-C, as a person stops it; SIGKILL after 20 s. */
  stop(): Promise<void>;
}

/**
 * Starts `npm run start:offline` in `scratch` on a port free at this moment, with `env` added, and
 * waits for its ready block. The port is free when picked, but another run on this machine can take
 * it (or the sink's, the next one) before it is bound; only that case is started once more.
 */
export async function startInScratch(scratch: string, env: Record<string, string>, startupMs: number): Promise<ScratchStart> {
  let child: ChildProcess | undefined;
  let output = "";
  const logTail = () => {
    const file = path.join(scratch, ".wrangler/logs/npm-start.log");
    if (!existsSync(file)) return "";
    return `\n--- last lines of ${file} ---\n${readFileSync(file, "utf8").split("\n").slice(-60).join("\n")}`;
  };
  const waitForOutput = async (pattern: RegExp, ms: number) => {
    const deadline = Date.now() + ms;
    for (;;) {
      const match = pattern.exec(output);
      if (match) return match;
      if (child?.exitCode !== null && child?.exitCode !== undefined) throw new Error(`npm start exited:\n${output}${logTail()}`);
      if (Date.now() > deadline) throw new Error(`no ${pattern} within ${ms} ms:\n${output}${logTail()}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  };
  const once = async () => {
    output = "";
    const port = await freePort();
    child = spawn(process.execPath, ["scripts/start.mjs", "--offline"], {
      cwd: scratch,
      detached: true,
      env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout?.on("data", (chunk) => (output += chunk));
    child.stderr?.on("data", (chunk) => (output += chunk));
    await waitForOutput(/Stop +Ctrl-C/, startupMs);
  };
  const stop = async () => {
    const running = child;
    if (!running?.pid || running.exitCode !== null) return;
    process.kill(-running.pid, "SIGINT");
    await new Promise((resolve) => {
      const timer = setTimeout(() => {
        try {
          process.kill(-running.pid!, "SIGKILL");
        } catch {
          // the group already ended
        }
        resolve(null);
      }, 20_000);
      running.once("exit", () => (clearTimeout(timer), resolve(null)));
    });
  };
  try {
    await once();
  } catch (error) {
    if (!/EADDRINUSE|address already in use/i.test(`${error}`)) throw error;
    try {
      process.kill(-child!.pid!, "SIGKILL");
    } catch {
      // the first start's group has ended already
    }
    await once();
  }
  return { scratch, output: () => output, waitForOutput, child: () => child, stop };
}

/** Removes the scratch copy. */
export function removeScratch(scratch: string): void {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
}
