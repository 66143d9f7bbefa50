/**
 * The documentation's links. Every relative link and image of every markdown file of the repository names a file or
 * folder that exists inside the repository, and a `#anchor` names a heading of its markdown file by GitHub's slug
 * rule (same-file anchors too). The README stays short (at most 300 lines) and links every other markdown file, so
 * each reference document is one click from it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const README = join(root, 'README.md');
const MAX_README_LINES = 300;

/** Every markdown file, leaving out node_modules and dot folders (.git, .sandbox, .vitest, ...). */
function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      if (entry.name.startsWith('.') || entry.name === 'node_modules') return [];
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return markdownFiles(path);
      return entry.name.endsWith('.md') ? [path] : [];
    })
    .toSorted();
}

/** A stretch of text as spaces, its line breaks kept. */
function blank(text: string): string {
  return text.replace(/[^\n]/g, ' ');
}

/** The text that markdown reads as markdown: fenced code, code spans and HTML comments blanked (lines kept). */
function prose(text: string): string {
  let fence: string | undefined;
  const lines = text.split('\n').map((line) => {
    const opening = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined && opening !== undefined) {
      fence = opening;
      return '';
    }
    if (fence !== undefined) {
      if (line.trim().startsWith(fence)) fence = undefined;
      return '';
    }
    return line;
  });
  return lines
    .join('\n')
    .replace(/<!--[\s\S]*?-->/g, blank)
    .replace(/(`+)[\s\S]*?[^`]\1(?!`)/g, blank);
}

/** GitHub's anchor of a heading: lowercase, punctuation removed (but '-' and '_'), each space a '-'. */
function slug(heading: string): string {
  const text = heading.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1');
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a markdown text's headings; a repeated slug gets -1, -2, ... as on GitHub. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of prose(text).matchAll(/^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/gm)) {
    const base = slug(m[1] as string);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    out.add(count === 0 ? base : `${base}-${count}`);
  }
  return out;
}

/** Link and image targets of a markdown text (inline and reference definitions), with their line numbers. */
function targets(text: string): { target: string; line: number }[] {
  const body = prose(text);
  const lineOf = (index: number) => body.slice(0, index).split('\n').length;
  const inline = [...body.matchAll(/!?\[(?:[^[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g)];
  const definitions = [...body.matchAll(/^ {0,3}\[[^\]]+\]:[ \t]*<?([^\s>]+)>?/gm)];
  return [...inline, ...definitions]
    .map((m) => ({ target: m[1] as string, line: lineOf(m.index) }))
    .toSorted((a, b) => a.line - b.line);
}

const EXTERNAL = /^(?:https?|mailto):/i;

/** Where a relative link of `file` leads: the file it names (absolute path) and its anchor. */
function resolveLink(file: string, target: string): { path: string; anchor: string | undefined } {
  const hash = target.indexOf('#');
  const pathPart = hash < 0 ? target : target.slice(0, hash);
  const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
  const clean = decodeURIComponent(pathPart.split('?')[0] as string);
  if (clean === '') return { path: file, anchor };
  return { path: clean.startsWith('/') ? join(root, clean) : resolve(dirname(file), clean), anchor };
}

/** What is wrong with the relative links of one markdown file (its text given), one line per problem. */
function linkProblems(file: string, text: string, read: (path: string) => string): string[] {
  const problems: string[] = [];
  const where = (line: number) => `${relative(root, file)}:${line}`;
  for (const { target, line } of targets(text)) {
    if (EXTERNAL.test(target)) continue;
    if (target === '') {
      problems.push(`${where(line)}: empty link`);
      continue;
    }
    const { path, anchor } = resolveLink(file, target);
    const inRepo = relative(root, path);
    if (inRepo.startsWith('..') || isAbsolute(inRepo)) {
      problems.push(`${where(line)}: ${target} leads out of the repository`);
      continue;
    }
    if (!existsSync(path)) {
      problems.push(`${where(line)}: ${target}: no such file or folder (${inRepo})`);
      continue;
    }
    if (anchor === undefined) continue;
    if (!path.endsWith('.md')) {
      problems.push(`${where(line)}: ${target}: an anchor into a file that is not markdown`);
      continue;
    }
    if (!anchors(path === file ? text : read(path)).has(anchor))
      problems.push(`${where(line)}: ${target}: ${inRepo} has no heading #${anchor}`);
  }
  return problems;
}

const read = (path: string) => readFileSync(path, 'utf8');
const files = markdownFiles(root);

describe('documentation links', () => {
  it('finds the markdown files, the README among them', () => {
    expect(files).toContain(README);
    expect(files.length).toBeGreaterThan(10);
  });

  it('every relative link and image names a file or folder inside the repository, every anchor a heading', () => {
    const problems = files.flatMap((file) => linkProblems(file, read(file), read));
    expect(problems).toEqual([]);
    // The check sees the links: the README alone has dozens.
    expect(targets(read(README)).filter((t) => !EXTERNAL.test(t.target)).length).toBeGreaterThan(30);
  });

  it('tells a missing file, a missing anchor, a link out of the repository and a stray same-file anchor', () => {
    const text = [
      '# Title',
      '## A "quoted" heading, with punctuation: fine_too',
      '[ok](config/README.md#configuration) [ok too](#a-quoted-heading-with-punctuation-fine_too) [top](#title)',
      '[gone](no-such-file.md) [no heading](config/README.md#no-such-heading) [out](../outside.md)',
      '![image](#missing-here) `[in code](nowhere.md)` [web](https://example.com/x.md)',
      '```',
      '[in a fence](nowhere.md)',
      '```',
    ].join('\n');
    expect(linkProblems(README, text, read)).toEqual([
      'README.md:4: no-such-file.md: no such file or folder (no-such-file.md)',
      'README.md:4: config/README.md#no-such-heading: config/README.md has no heading #no-such-heading',
      'README.md:4: ../outside.md leads out of the repository',
      'README.md:5: #missing-here: README.md has no heading #missing-here',
    ]);
  });

  it(`the README is at most ${MAX_README_LINES} lines`, () => {
    const lines = read(README).split('\n').length - 1;
    expect(lines).toBeLessThanOrEqual(MAX_README_LINES);
  });

  it('the README links every other markdown file of the repository from its References, one line each', () => {
    const text = read(README);
    const start = text.indexOf('\n## References\n');
    const end = text.indexOf('\n## ', start + 1);
    const references = text.slice(start, end < 0 ? undefined : end);
    const lines = references.split('\n').filter((line) => line.startsWith('- ['));
    const linked = lines.map((line) => resolveLink(README, targets(line)[0]?.target ?? '').path);
    expect(start).toBeGreaterThan(0);
    expect(files.filter((f) => f !== README && !linked.includes(f)).map((f) => relative(root, f))).toEqual([]);
    expect(new Set(linked).size).toBe(lines.length);
  });
});
