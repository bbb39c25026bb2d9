/**
 * Runs the marked blocks of one page the way a reader would: in order, in one shell session (variables,
 * functions and the working directory carry from block to block), with bash `set -euo pipefail`, each block
 * verbatim. A page gets a scratch folder — `cwd=root` is a copy of the repository root made of symlinks to
 * the clone's top-level entries (so files the page writes, `.cap-kernel/` included, stay out of the clone),
 * `cwd=empty` an empty folder — its own free port as `CAP_PORT` (the kernel's documented port variable) and
 * its own `HOME`. `fake=claude` puts the CLI tests' fake of that command (cli/test/fixtures/bin) first on
 * the block's PATH, `ready` holds the page until a background block prints it, and `stop` presses Ctrl-C
 * (SIGINT) on the page's background blocks before its block.
 *
 * Must never: change a block's text, pass a block a value the page does not show how to get, or leave a
 * process of the page running when it returns.
 */
import { spawn } from "node:child_process";
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "./blocks.mjs";

// What `npm start` runs once the workspace is built (scripts/quickstart.mjs), for blocks marked kernel=demo.
const DEMO = [
  join(ROOT, "reference-server/dist/bin.js"),
  "demo",
  "--driver",
  `"${process.execPath}" "${join(ROOT, "examples/echo-ts/dist/echo.js")}"`,
  "--docs-dir",
  join(ROOT, "docs/site"),
];

// The CLI tests' fakes of claude, codex, gemini and cursor-agent: they answer without any model.
export const FAKES = join(ROOT, "cli/test/fixtures/bin");

/** A folder holding only the named fakes (`fake=claude,codex`), so the block finds nothing else there. */
function fakeBin(dir, names) {
  mkdirSync(dir, { recursive: true });
  for (const name of String(names).split(",")) {
    const target = join(FAKES, name);
    if (!existsSync(target)) throw new Error(`fake=${name}: no ${target}`);
    if (!existsSync(join(dir, name))) symlinkSync(realpathSync(target), join(dir, name));
  }
  return dir;
}

// Shell variables that belong to bash itself, not to the reader's session.
const BASH_OWN =
  /^(BASH.*|SHELLOPTS|EUID|PPID|UID|FUNCNAME|PIPESTATUS|GROUPS|DIRSTACK|RANDOM|SRANDOM|SECONDS|LINENO|HISTCMD|EPOCHREALTIME|EPOCHSECONDS|_|OPTIND|OPTARG|OPTERR|COLUMNS|LINES|SHLVL|PWD|OLDPWD|IFS|PS[0-9]|HOSTNAME|HOSTTYPE|MACHTYPE|OSTYPE)$/;

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

const tail = (text, n = 30) => text.split("\n").slice(-n).join("\n");
const readLog = (path) => {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
};

async function until(check, ms) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return check();
}

function scratchRoot(dir) {
  mkdirSync(dir);
  for (const name of readdirSync(ROOT)) {
    if (name === ".cap-kernel" || name === ".git") continue;
    symlinkSync(join(ROOT, name), join(dir, name));
  }
  return dir;
}

/**
 * Runs one page's marked blocks (`{file, line, body, marker}`, in page order). Resolves to
 * `{ok: true}` or `{ok: false, error}` where the error names `file:line`, the exit code and the output tail.
 */
export async function runPage(blocks) {
  const scratch = mkdtempSync(join(tmpdir(), "cap-doc-"));
  const first = blocks[0].marker.attrs;
  const start = first.cwd === "empty" ? join(scratch, "empty") : scratchRoot(join(scratch, "root"));
  if (first.cwd === "empty") mkdirSync(start);
  mkdirSync(join(scratch, "home"));
  const port = await freePort();
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(CAP_|COMMONLY_)/.test(k)));
  Object.assign(env, {
    CAP_PORT: String(port),
    HOME: join(scratch, "home"),
    // A fresh HOME, but npx keeps its download cache (pnpm is fetched once, not once per page).
    npm_config_cache: process.env.npm_config_cache ?? join(homedir(), ".npm"),
  });
  const state = join(scratch, "state.sh");
  const cwdFile = join(scratch, "cwd");
  const groups = [];
  const started = (cmd, args, log, cwd) => {
    const fd = openSync(log, "a");
    const child = spawn(cmd, args, { cwd, env, detached: true, stdio: ["ignore", fd, fd] });
    closeSync(fd);
    const proc = { child, log, exit: null };
    child.on("exit", (code, signal) => (proc.exit = { code, signal }));
    groups.push(proc);
    return proc;
  };
  const background = [];
  let kernel = null;
  let cwd = start;
  try {
    for (const [i, block] of blocks.entries()) {
      const a = block.marker.attrs;
      const where = `${block.file}:${block.line}`;
      if (a.kernel === "demo" && !kernel) {
        kernel = started(process.execPath, DEMO, join(scratch, "kernel.log"), cwd);
        const up = await until(() => /is running at/.test(readLog(kernel.log)) || kernel.exit, 30_000);
        if (!up || kernel.exit)
          return {
            ok: false,
            error: `${where}: the demo kernel did not start\n${tail(readLog(kernel.log))}`,
          };
      }
      if (a.stop) {
        // The reader presses Ctrl-C in each terminal left running before going on.
        for (const entry of background.splice(0)) {
          const error = await settle(entry, true);
          if (error) return { ok: false, error };
        }
      }
      const script = join(scratch, `block-${i}.sh`);
      const fakes = a.fake ? fakeBin(join(scratch, `fake-${i}`), a.fake) : null;
      // The fakes stay this block's: the saved session forgets them.
      const unfake = fakes
        ? `PATH=":$PATH:"; PATH="\${PATH//:'${fakes}':/:}"; PATH="\${PATH#:}"; PATH="\${PATH%:}"; unset FAKE_CLI_STATE_DIR; `
        : "";
      const save = `__cap_save() { ${unfake}{ declare -p $(compgen -v | grep -Ev '${BASH_OWN.source}') 2>/dev/null | grep -Ev '^declare -[a-zA-Z]*r'; declare -f; alias -p; } > '${state}'; pwd > '${cwdFile}'; }`;
      const text = [
        "set -euo pipefail",
        "shopt -s expand_aliases",
        `[ -f '${state}' ] && source '${state}'`,
        fakes ? `export PATH='${fakes}':"$PATH" FAKE_CLI_STATE_DIR='${join(scratch, "fake-state")}'` : "",
        a.background ? "" : `${save}\ntrap __cap_save EXIT`,
        `# ${where}`,
        block.body,
        "",
      ].join("\n");
      writeFileSync(script, text);
      const log = join(scratch, `block-${i}.log`);
      const proc = started("bash", [script], log, cwd);
      const timeout = Number(a.timeout ?? 60) * 1000;
      if (a.background) {
        background.push({ proc, block, timeout });
        // The reader waits for the server's banner before the next command.
        if (a.ready) {
          const ready = new RegExp(a.ready);
          const seen = await until(() => ready.test(readLog(log)) || proc.exit, timeout);
          if (!seen || !ready.test(readLog(log)))
            return { ok: false, error: `${where}: never printed /${a.ready}/\n${tail(readLog(log))}` };
        }
        continue;
      }
      const done = await until(() => proc.exit, timeout);
      const out = readLog(log);
      if (!done)
        return { ok: false, error: `${where}: still running after ${timeout / 1000} s\n${tail(out)}` };
      if (proc.exit.code !== 0)
        return { ok: false, error: `${where}: exit ${proc.exit.code ?? proc.exit.signal}\n${tail(out)}` };
      if (a.expect && !new RegExp(a.expect).test(out))
        return { ok: false, error: `${where}: output does not match /${a.expect}/\n${tail(out)}` };
      cwd = readLog(cwdFile).trim() || cwd;
    }
    for (const entry of background) {
      const error = await settle(entry, false);
      if (error) return { ok: false, error };
    }
    return { ok: true };
  } finally {
    // A block may leave children behind (`serve &`): they share its process group, so the group is stopped.
    for (const g of groups) signalGroup(g.child.pid, "SIGTERM");
    await until(() => groups.every((g) => !groupAlive(g.child.pid)), 3000);
    for (const g of groups) signalGroup(g.child.pid, "SIGKILL");
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * Waits for a background block's `expect`, then (`interrupt`) sends its process group SIGINT and waits for it
 * to exit; resolves to an error text, or null when the block saw what it expects and did not fail (exited 0,
 * or died of that SIGINT).
 */
async function settle({ proc, block, timeout }, interrupt) {
  const where = `${block.file}:${block.line}`;
  const want = block.marker.attrs.expect;
  if (want) {
    const seen = await until(() => new RegExp(want).test(readLog(proc.log)) || proc.exit, timeout);
    if (!seen || !new RegExp(want).test(readLog(proc.log)))
      return `${where}: output does not match /${want}/\n${tail(readLog(proc.log))}`;
  }
  if (interrupt && !proc.exit) {
    signalGroup(proc.child.pid, "SIGINT");
    if (!(await until(() => proc.exit, 15_000)))
      return `${where}: still running 15 s after Ctrl-C\n${tail(readLog(proc.log))}`;
  }
  // Dying of the Ctrl-C itself is how many programs stop; an exit code other than 0 is a failure.
  const killedByStop = interrupt && proc.exit?.signal === "SIGINT";
  if (proc.exit && proc.exit.code !== 0 && !killedByStop)
    return `${where}: exit ${proc.exit.code ?? proc.exit.signal}\n${tail(readLog(proc.log))}`;
  return null;
}

function signalGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {}
}

function groupAlive(pid) {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}
