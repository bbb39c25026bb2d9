#!/usr/bin/env node
// Writes docs/api.md, the API reference of @commonly/cap-sdk, from the TSDoc comments of everything
// the package exports (src/index.ts, src/node.ts, src/validators.ts, src/admin.ts), with the TypeScript compiler
// API. `--check` exits 1 when docs/api.md is stale instead of writing it (a test runs that).
// Usage: pnpm --filter @commonly/cap-sdk docs [--check]
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const sdk = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const out = join(sdk, "docs", "api.md");
const entries = [
  ["@commonly/cap-sdk", "src/index.ts"],
  ["@commonly/cap-sdk/node", "src/node.ts"],
  ["@commonly/cap-sdk/validators", "src/validators.ts"],
  ["@commonly/cap-sdk/admin", "src/admin.ts"],
];

const program = ts.createProgram(
  entries.map(([, file]) => join(sdk, file)),
  {
    strict: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    skipLibCheck: true,
    types: [],
  },
);
const checker = program.getTypeChecker();
const fmt = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseAliasDefinedOutsideCurrentScope;

function docOf(symbol) {
  const text = ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim();
  const tags = symbol
    .getJsDocTags(checker)
    .filter((t) => t.name !== "internal")
    .map((t) => `*@${t.name}* ${ts.displayPartsToString(t.text ?? [])}`.trim());
  return [text, ...tags].filter(Boolean).join("\n\n");
}

const oneLine = (s) => s.replace(/\s+/g, " ").trim();

/** `name(params): Return` for callables (from the checker, so defaults and bodies never leak in), else the declaration's text. */
function signature(decl) {
  const callable =
    ts.isFunctionDeclaration(decl) ||
    ts.isMethodDeclaration(decl) ||
    ts.isMethodSignature(decl) ||
    ts.isConstructorDeclaration(decl);
  if (callable) {
    // Parameters and return type as written (named types, not their expansions); defaults become `?`.
    const params = decl.parameters
      .map((p) => {
        const optional = p.questionToken || p.initializer ? "?" : "";
        const type = p.type
          ? oneLine(p.type.getText())
          : checker.typeToString(checker.getTypeAtLocation(p), decl, fmt);
        return `${p.dotDotDotToken ? "..." : ""}${p.name.getText()}${optional}: ${type}`;
      })
      .join(", ");
    const ret = decl.type
      ? oneLine(decl.type.getText())
      : checker.typeToString(checker.getSignatureFromDeclaration(decl).getReturnType(), decl, fmt);
    if (ts.isConstructorDeclaration(decl)) return `constructor(${params})`;
    const isStatic = ts.getCombinedModifierFlags(decl) & ts.ModifierFlags.Static ? "static " : "";
    return `${isStatic}${decl.name.getText()}(${params}): ${ret}`;
  }
  if (ts.isGetAccessorDeclaration(decl)) {
    const type = decl.type
      ? oneLine(decl.type.getText())
      : checker.typeToString(checker.getTypeAtLocation(decl), decl, fmt);
    return `get ${decl.name.getText()}: ${type}`;
  }
  const text = decl.getText().replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, "");
  return oneLine(text)
    .replace(/^export\s+/, "")
    .replace(/;$/, "");
}

function members(symbol, section) {
  const lines = [];
  const decl = symbol.declarations?.[0];
  const isPrivate = (m) =>
    m.name.startsWith("#") ||
    m.declarations?.some(
      (d) => ts.getCombinedModifierFlags(d) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected),
    );
  for (const member of symbol.members ? [...symbol.members.values()] : []) {
    if (isPrivate(member) || (member.name === "__constructor" && !decl)) continue;
    for (const d of member.declarations ?? []) {
      if (ts.isIndexSignatureDeclaration(d)) {
        lines.push(`- \`${signature(d)}\``);
        continue;
      }
      const name = member.name === "__constructor" ? "constructor" : member.name;
      const sig = ts.isConstructorDeclaration(d)
        ? `new ${symbol.name}${signature(d).replace(/^constructor/, "")}`
        : signature(d);
      const doc = docOf(member);
      lines.push(`- \`${sig}\`${doc ? ` — ${oneLine(doc)}` : ""}`);
      if (name === "constructor") break;
    }
  }
  if (symbol.exports) {
    for (const member of symbol.exports.values()) {
      if (member.name === "prototype" || member.name.startsWith("__")) continue;
      for (const d of member.declarations ?? []) {
        if (ts.getCombinedModifierFlags(d) & ts.ModifierFlags.Private) continue;
        const doc = docOf(member);
        lines.push(
          `- \`static ${signature(d).replace(/^static\s+/, "")}\`${doc ? ` — ${oneLine(doc)}` : ""}`,
        );
      }
    }
  }
  if (lines.length) section.push("", ...lines);
}

function render(name, symbol) {
  const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  const decl = target.declarations?.[0];
  if (!decl) return [];
  const section = [`### \`${name}\``, ""];
  const doc = docOf(target);
  if (ts.isClassDeclaration(decl)) {
    section.push(
      `class${decl.heritageClauses ? ` ${oneLine(decl.heritageClauses.map((h) => h.getText()).join(" "))}` : ""}`,
    );
    if (doc) section.push("", doc);
    members(target, section);
  } else if (ts.isInterfaceDeclaration(decl)) {
    section.push(
      `interface${decl.heritageClauses ? ` ${oneLine(decl.heritageClauses.map((h) => h.getText()).join(" "))}` : ""}`,
    );
    if (doc) section.push("", doc);
    members(target, section);
  } else if (ts.isFunctionDeclaration(decl)) {
    section.push("```ts", `function ${signature(decl).replace(/^(async\s+)?function\s+/, "")}`, "```");
    if (doc) section.push("", doc);
  } else if (ts.isTypeAliasDeclaration(decl)) {
    let text = oneLine(decl.getText().replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, "")).replace(/^export\s+/, "");
    // Model types alias the generated schemas: show their shape instead of `Schemas["…"]`.
    if (/Schemas\[|keyof typeof/.test(text)) {
      const shape = checker.typeToString(
        checker.getDeclaredTypeOfSymbol(target),
        undefined,
        fmt | ts.TypeFormatFlags.InTypeAlias,
      );
      text = `type ${name} = ${shape}`;
    }
    section.push("```ts", text, "```");
    if (doc) section.push("", doc);
  } else if (ts.isVariableDeclaration(decl)) {
    const type = checker.typeToString(checker.getTypeOfSymbolAtLocation(target, decl), decl, fmt);
    section.push("```ts", `const ${name}: ${type}`, "```");
    if (doc) section.push("", doc);
  } else {
    return [];
  }
  return [...section, ""];
}

const lines = [
  "<!-- Generated by `pnpm --filter @commonly/cap-sdk docs` (scripts/api-docs.mjs) from the TSDoc in src/. Do not edit by hand. -->",
  "",
  "# `@commonly/cap-sdk` API reference",
  "",
  "Everything each entry point exports, with its TSDoc. The guide is [README.md](../README.md).",
  "",
];
for (const [specifier, file] of entries) {
  const source = program.getSourceFile(join(sdk, file));
  const moduleSymbol = checker.getSymbolAtLocation(source);
  const exports = checker.getExportsOfModule(moduleSymbol).sort((a, b) => a.name.localeCompare(b.name));
  lines.push(`## \`${specifier}\``, "");
  const header = ts.getLeadingCommentRanges(source.text, 0)?.[0];
  if (header) {
    const text = source.text
      .slice(header.pos, header.end)
      .replace(/^\/\*\*?|\*\/$/g, "")
      .split("\n")
      .map((l) => l.replace(/^\s*\* ?/, ""))
      .join("\n")
      .trim();
    lines.push(text, "");
  }
  for (const symbol of exports) lines.push(...render(symbol.name, symbol));
}
const raw = `${lines
  .join("\n")
  .replace(/\n{3,}/g, "\n\n")
  .trimEnd()}\n`;
// Format as the repository's `biome check --write` would, so the file is stable under it. (Through a
// temporary file: biome formats code blocks inside markdown files, but not markdown read from stdin.)
const biome = createRequire(import.meta.url).resolve("@biomejs/biome/bin/biome");
const scratch = join(sdk, "docs", `.api.${process.pid}.md`);
writeFileSync(scratch, raw);
let text;
try {
  const formatted = spawnSync(process.execPath, [biome, "format", "--write", scratch], {
    encoding: "utf8",
    cwd: sdk,
  });
  if (formatted.status !== 0) throw new Error(`biome format failed: ${formatted.stderr}${formatted.stdout}`);
  text = readFileSync(scratch, "utf8");
} finally {
  rmSync(scratch, { force: true });
}

if (process.argv.includes("--check")) {
  let current = "";
  try {
    current = readFileSync(out, "utf8");
  } catch {}
  if (current !== text) {
    process.stderr.write("docs/api.md is stale: run `pnpm --filter @commonly/cap-sdk docs`\n");
    process.exit(1);
  }
} else {
  writeFileSync(out, text);
}
