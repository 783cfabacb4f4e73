/**
 * The README's TypeScript snippets compile under the project's compiler settings (strict,
 * noUncheckedIndexedAccess, noUnusedLocals...): each ```ts block is written next to the README (so
 * its relative imports resolve) and type-checked with the TypeScript compiler API.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../src/core/paths.js';

/** The ```ts blocks of a markdown text. */
function tsBlocks(md: string): string[] {
  return [...md.matchAll(/```(?:ts|typescript)\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

function compilerOptions(): ts.CompilerOptions {
  const file = resolve(PACKAGE_ROOT, 'tsconfig.json');
  const cfg = ts.readConfigFile(file, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(cfg.config, ts.sys, PACKAGE_ROOT);
  return { ...parsed.options, noEmit: true, incremental: false, tsBuildInfoFile: undefined, declaration: false };
}

/** Diagnostics of `code` compiled as a module at the repository root. */
function diagnostics(code: string, name: string): string[] {
  const file = resolve(PACKAGE_ROOT, name);
  writeFileSync(file, code);
  try {
    const program = ts.createProgram([file], compilerOptions());
    return ts
      .getPreEmitDiagnostics(program)
      .filter((d) => d.file?.fileName === file || d.file === undefined)
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  } finally {
    rmSync(file, { force: true });
  }
}

describe('README TypeScript snippets', () => {
  const blocks = tsBlocks(readFileSync(resolve(PACKAGE_ROOT, 'README.md'), 'utf8'));
  it('has at least one', () => {
    expect(blocks.length).toBeGreaterThan(0);
  });
  blocks.forEach((code, i) => {
    it(`block ${i + 1} compiles`, () => {
      expect(diagnostics(code, `.readme-snippet-${process.pid}-${i}.ts`)).toEqual([]);
    }, 60_000);
  });
  it('the check finds a type error (it can fail)', () => {
    expect(diagnostics("const x: number = 'a';\nexport { x };\n", `.readme-snippet-${process.pid}-bad.ts`).length).toBeGreaterThan(0);
  }, 60_000);
});
