/**
 * What the report tests read SVG with, on fast-xml-parser (XML 1.0 well-formedness and parsing), and
 * the structural checks every report SVG must pass.
 *
 * `parseXml` gives a document's root as a plain tree (`XmlElement`), its text and attribute values
 * decoded and line ends read as XML reads them (CR and CRLF as LF). Well-formedness: fast-xml-parser's
 * `XMLValidator` checks the syntax (tags, nesting, quoted and unique attributes, bare `&` in text,
 * the XML declaration first); the rules it lets through (fast-xml-parser 5) are checked on the tokens
 * `XMLParser` returns with entities left as written: one root element and nothing but whitespace,
 * comments and processing instructions around it, no DOCTYPE, references only to the five predefined
 * entities and to characters XML allows, no `<` in attribute values, no `]]>` in text, no `--` in
 * comments, and no character XML 1.0 forbids. The tests of `parseXml` (test/report/svg.test.ts) show
 * that it refuses each of these.
 *
 * `checkSvg` adds, on top of well-formedness: an `<svg>` root in the SVG namespace with `width`,
 * `height` and a matching `viewBox`; `<title>` and `<desc>` first, referenced by `aria-labelledby`;
 * unique ids and every `url(#id)` resolving; finite, non-negative geometry; path data without
 * `NaN`/`Infinity`.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { expect } from 'vitest';

/** A parsed element. */
export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  /** Concatenated character data directly inside this element (entities decoded, CDATA included). */
  text: string;
}

/** A node of fast-xml-parser's `preserveOrder` output: `{ [name]: children, ':@'?: attributes }`. */
type FxpNode = Record<string, unknown>;

const TEXT = '#text';
const CDATA = '#cdata';
const COMMENT = '#comment';
const ATTRS = ':@';

const OPTIONS = {
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  allowBooleanAttributes: false,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  cdataPropName: CDATA,
  commentPropName: COMMENT,
} as const;
/** Tokens as written: entities not expanded, for the checks on references. */
const RAW = new XMLParser({ ...OPTIONS, processEntities: false });
/**
 * Values decoded: the predefined entities and (with `htmlEntities`, the only switch fast-xml-parser 5
 * has for them) numeric character references. The HTML names it also knows never reach it: the raw
 * check refuses every entity but the five predefined ones.
 */
const DECODED = new XMLParser({ ...OPTIONS, htmlEntities: true });

const INVALID_CHAR = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** An `&` that does not start a predefined entity or a character reference. */
const BAD_REFERENCE = /&(?!(?:amp|lt|gt|quot|apos|#[0-9]+|#x[0-9A-Fa-f]+);)/;
const DECLARATION_ATTRS = new Set(['version', 'encoding', 'standalone']);

/** The first character reference in `v` to a character XML 1.0 does not allow (fast-xml-parser drops those silently). */
function forbiddenReference(v: string): string | undefined {
  for (const m of v.matchAll(/&#(?:x([0-9A-Fa-f]+)|([0-9]+));/g)) {
    const cp = m[1] !== undefined ? Number.parseInt(m[1], 16) : Number.parseInt(m[2]!, 10);
    const allowed =
      cp === 0x9 || cp === 0xa || cp === 0xd || (cp >= 0x20 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp <= 0x10ffff);
    if (!allowed) return m[0];
  }
  return undefined;
}

/** Refuses a bare `&`, an entity other than the five predefined ones, and a reference to a forbidden character. */
function checkReferences(v: string, where: string): void {
  if (BAD_REFERENCE.test(v)) fail(`bare "&" or unknown entity in ${where}`);
  const ref = forbiddenReference(v);
  if (ref !== undefined) fail(`${ref} in ${where} refers to a character not allowed in XML`);
}

function fail(msg: string): never {
  throw new Error(`XML error: ${msg}`);
}

/** The name of a node (`#text`, `#cdata`, `#comment`, `?target` or an element name). */
function nodeName(n: FxpNode): string {
  const k = Object.keys(n).find((key) => key !== ATTRS);
  if (k === undefined) return fail('empty node from the parser');
  return k;
}
const isElement = (name: string) => !name.startsWith('#') && !name.startsWith('?');
const attrsOf = (n: FxpNode) => (n[ATTRS] ?? {}) as Record<string, string>;
const childrenOf = (n: FxpNode, name: string) => n[name] as FxpNode[];
/** The text of a `#cdata` or `#comment` node (a list of `#text` nodes). */
const innerText = (n: FxpNode, name: string) =>
  childrenOf(n, name)
    .map((t) => String(t[TEXT] ?? ''))
    .join('');

/** The rules XMLValidator does not check, on the raw tokens of one node and its descendants. */
function checkRaw(n: FxpNode): void {
  const name = nodeName(n);
  if (name === TEXT) {
    const t = String(n[TEXT]);
    checkReferences(t, `the text ${JSON.stringify(t.slice(0, 40))}`);
    if (t.includes(']]>')) fail('"]]>" in character data');
  } else if (name === COMMENT) {
    const c = innerText(n, COMMENT);
    if (c.includes('--') || c.endsWith('-')) fail(`"--" inside a comment: ${JSON.stringify(c.slice(0, 40))}`);
  } else if (isElement(name)) {
    for (const [k, v] of Object.entries(attrsOf(n))) {
      if (v.includes('<')) fail(`"<" in the value of attribute ${k} of <${name}>`);
      checkReferences(v, `the value of attribute ${k} of <${name}>`);
    }
    for (const c of childrenOf(n, name)) checkRaw(c);
  }
}

/** The decoded tree of an element. */
function toElement(n: FxpNode): XmlElement {
  const name = nodeName(n);
  const el: XmlElement = { name, attrs: { ...attrsOf(n) }, children: [], text: '' };
  for (const c of childrenOf(n, name)) {
    const cn = nodeName(c);
    if (cn === TEXT) el.text += String(c[TEXT]);
    else if (cn === CDATA) el.text += innerText(c, CDATA);
    else if (isElement(cn)) el.children.push(toElement(c));
  }
  return el;
}

/** Parses `src` as a standalone XML document; throws an `Error` ("XML error: ...") naming the first fault found. */
export function parseXml(src: string): XmlElement {
  const valid = XMLValidator.validate(src);
  if (valid !== true) fail(`${valid.err.msg} (line ${valid.err.line}, column ${valid.err.col})`);
  const bad = INVALID_CHAR.exec(src);
  if (bad) fail(`character U+${bad[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')} not allowed in XML, at offset ${bad.index}`);
  if (src.includes('<!DOCTYPE')) fail('DOCTYPE not expected');
  if (src.slice(src.lastIndexOf('>') + 1).trim() !== '') fail('content after the root element');

  const raw = RAW.parse(src) as FxpNode[];
  const top = raw.map(nodeName);
  if (top.filter(isElement).length !== 1) fail(`${top.filter(isElement).length} root elements`);
  for (const [i, n] of raw.entries()) {
    const name = top[i]!;
    if (name === TEXT && String(n[TEXT]).trim() !== '') fail('text outside the root element');
    if (name === '?xml') {
      const a = attrsOf(n);
      if (!/^1\.[0-9]+$/.test(a['version'] ?? '') || Object.keys(a).some((k) => !DECLARATION_ATTRS.has(k)))
        fail(`malformed XML declaration ${JSON.stringify(a)}`);
    }
    checkRaw(n);
  }

  const root = (DECODED.parse(src) as FxpNode[]).find((n) => isElement(nodeName(n)))!;
  return toElement(root);
}

/** All elements named `name` in document order (depth first), including `root` itself. */
export function findAll(root: XmlElement, name: string): XmlElement[] {
  return findWhere(root, (e) => e.name === name);
}

/** Elements matching `pred` in document order. */
export function findWhere(root: XmlElement, pred: (e: XmlElement) => boolean): XmlElement[] {
  const out: XmlElement[] = [];
  const walk = (e: XmlElement) => {
    if (pred(e)) out.push(e);
    e.children.forEach(walk);
  };
  walk(root);
  return out;
}

/** Numeric value of an attribute (throws when it is missing or not a number). */
export function num(e: XmlElement, attr: string): number {
  const v = e.attrs[attr];
  if (v === undefined || v.trim() === '' || !Number.isFinite(Number(v))) throw new Error(`<${e.name}> has no numeric ${attr}: ${v}`);
  return Number(v);
}

const NUMERIC = ['x', 'y', 'x1', 'y1', 'x2', 'y2', 'cx', 'cy', 'r', 'width', 'height', 'stroke-width', 'font-size'];
const NON_NEGATIVE = new Set(['width', 'height', 'r', 'stroke-width', 'font-size']);

/** Parses `svg` and asserts the structural rules; returns the root element. */
export function checkSvg(svg: string): XmlElement {
  const root = parseXml(svg);
  expect(root.name).toBe('svg');
  expect(root.attrs.xmlns).toBe('http://www.w3.org/2000/svg');
  const w = Number(root.attrs.width);
  const h = Number(root.attrs.height);
  expect(w).toBeGreaterThan(0);
  expect(h).toBeGreaterThan(0);
  expect(root.attrs.viewBox).toBe(`0 0 ${root.attrs.width} ${root.attrs.height}`);
  const [t, d] = root.children;
  expect(t?.name).toBe('title');
  expect(d?.name).toBe('desc');
  expect(t!.text.length).toBeGreaterThan(0);
  expect(d!.text.length).toBeGreaterThan(0);
  expect(root.attrs['aria-labelledby']).toBe(`${t!.attrs.id} ${d!.attrs.id}`);
  expect(root.attrs.role).toBe('img');

  const ids = new Set<string>();
  for (const e of findWhere(root, (e) => e.attrs.id !== undefined)) {
    expect(ids.has(e.attrs.id!), `duplicate id ${e.attrs.id}`).toBe(false);
    ids.add(e.attrs.id!);
  }
  for (const e of findWhere(root, () => true)) {
    for (const [k, v] of Object.entries(e.attrs)) {
      for (const m of v.matchAll(/url\(#([^)]*)\)/g)) expect(ids.has(m[1]!), `${k}=${v} refers to a missing id`).toBe(true);
      if (NUMERIC.includes(k) && e.name !== 'svg') {
        const n = Number(v);
        expect(Number.isFinite(n), `<${e.name} ${k}="${v}">`).toBe(true);
        if (NON_NEGATIVE.has(k)) expect(n, `<${e.name} ${k}="${v}">`).toBeGreaterThanOrEqual(0);
      }
    }
    if (e.name === 'path') {
      const dd = e.attrs.d ?? '';
      expect(dd, 'path data').toMatch(/^[MLHVZmlhvz0-9 .-]*$/);
      expect(dd).not.toMatch(/NaN|Infinity/);
    }
  }
  return root;
}
