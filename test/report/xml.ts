/**
 * A small strict XML 1.0 well-formedness checker and parser for the report tests (no dependency).
 * It accepts what the report writes and what XML allows in it: an optional XML declaration,
 * comments and processing instructions, one root element, elements with quoted attributes,
 * character data with the five predefined and numeric character references, and CDATA sections.
 * It rejects, with the offset of the fault: unescaped `<` or `&` in text or attribute values,
 * unknown entities, duplicate attributes, mismatched or unclosed tags, `--` inside comments,
 * content after the root, a DOCTYPE, and characters XML 1.0 forbids.
 */

/** A parsed element. */
export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  /** Concatenated character data directly inside this element (entities decoded). */
  text: string;
}

const NAME = /[A-Za-z_:][A-Za-z0-9_.:-]*/y;
const INVALID_CHAR = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const PREDEFINED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** Parses `src` as a standalone XML document; throws an `Error` naming the offset of the first fault. */
export function parseXml(src: string): XmlElement {
  let i = 0;
  const fail = (msg: string): never => {
    const line = src.slice(0, i).split('\n').length;
    throw new Error(`XML error at offset ${i} (line ${line}): ${msg}: ${JSON.stringify(src.slice(i, i + 40))}`);
  };
  const bad = INVALID_CHAR.exec(src);
  if (bad) {
    i = bad.index;
    fail('character not allowed in XML');
  }
  const ws = () => {
    while (i < src.length && ' \t\r\n'.includes(src[i]!)) i++;
  };
  const name = (): string => {
    NAME.lastIndex = i;
    const m = NAME.exec(src);
    if (!m) return fail('expected a name');
    i += m[0].length;
    return m[0];
  };
  const decode = (s: string, base: number): string =>
    s.replace(/&([^;]*);|&/g, (whole, ent: string | undefined, off: number) => {
      if (ent === undefined) {
        i = base + off;
        return fail('bare "&"');
      }
      if (ent in PREDEFINED) return PREDEFINED[ent]!;
      const m = /^#(?:x([0-9A-Fa-f]+)|([0-9]+))$/.exec(ent);
      if (!m) {
        i = base + off;
        return fail(`unknown entity ${whole}`);
      }
      const cp = m[1] !== undefined ? parseInt(m[1], 16) : parseInt(m[2]!, 10);
      const ch = String.fromCodePoint(cp);
      if (INVALID_CHAR.test(ch) || cp > 0x10ffff) {
        i = base + off;
        return fail(`character reference to a forbidden character ${whole}`);
      }
      return ch;
    });
  const misc = () => {
    for (;;) {
      ws();
      if (src.startsWith('<!--', i)) comment();
      else if (src.startsWith('<?', i)) pi();
      else return;
    }
  };
  const comment = () => {
    const end = src.indexOf('-->', i + 4);
    if (end < 0) fail('unterminated comment');
    if (src.slice(i + 4, end).includes('--')) fail('"--" inside a comment');
    i = end + 3;
  };
  const pi = () => {
    i += 2;
    const target = name();
    if (target.toLowerCase() === 'xml') fail('XML declaration not at the start');
    const end = src.indexOf('?>', i);
    if (end < 0) fail('unterminated processing instruction');
    i = end + 2;
  };
  const element = (): XmlElement => {
    if (src[i] !== '<') fail('expected "<"');
    i++;
    const el: XmlElement = { name: name(), attrs: {}, children: [], text: '' };
    for (;;) {
      const before = i;
      ws();
      if (src.startsWith('/>', i)) {
        i += 2;
        return el;
      }
      if (src[i] === '>') {
        i++;
        break;
      }
      if (i === before) fail('expected whitespace before an attribute');
      const an = name();
      ws();
      if (src[i] !== '=') fail('expected "="');
      i++;
      ws();
      const q = src[i];
      if (q !== '"' && q !== "'") fail('expected a quoted attribute value');
      const end = src.indexOf(q!, i + 1);
      if (end < 0) fail('unterminated attribute value');
      const raw = src.slice(i + 1, end);
      if (raw.includes('<')) {
        i = i + 1 + raw.indexOf('<');
        fail('"<" in an attribute value');
      }
      if (an in el.attrs) fail(`duplicate attribute ${an}`);
      el.attrs[an] = decode(raw, i + 1);
      i = end + 1;
    }
    for (;;) {
      if (i >= src.length) fail(`unclosed element <${el.name}>`);
      if (src.startsWith('</', i)) {
        i += 2;
        const n = name();
        if (n !== el.name) fail(`</${n}> closes <${el.name}>`);
        ws();
        if (src[i] !== '>') fail('expected ">"');
        i++;
        return el;
      }
      if (src.startsWith('<!--', i)) comment();
      else if (src.startsWith('<![CDATA[', i)) {
        const end = src.indexOf(']]>', i);
        if (end < 0) fail('unterminated CDATA');
        el.text += src.slice(i + 9, end);
        i = end + 3;
      } else if (src.startsWith('<?', i)) pi();
      else if (src[i] === '<') el.children.push(element());
      else {
        let end = src.indexOf('<', i);
        if (end < 0) end = src.length;
        const raw = src.slice(i, end);
        if (raw.includes(']]>')) fail('"]]>" in character data');
        el.text += decode(raw, i);
        i = end;
      }
    }
  };

  if (src.startsWith('\uFEFF')) i = 1;
  if (src.startsWith('<?xml', i)) {
    const end = src.indexOf('?>', i);
    if (end < 0) fail('unterminated XML declaration');
    const decl = src.slice(i, end + 2);
    if (!/^<\?xml\s+version\s*=\s*("1\.[0-9]+"|'1\.[0-9]+')(\s+encoding\s*=\s*("[A-Za-z][\w.-]*"|'[A-Za-z][\w.-]*'))?(\s+standalone\s*=\s*("(yes|no)"|'(yes|no)'))?\s*\?>$/.test(decl)) fail('malformed XML declaration');
    i = end + 2;
  }
  misc();
  if (src.startsWith('<!DOCTYPE', i)) fail('DOCTYPE not expected');
  const root = element();
  misc();
  if (i < src.length) fail('content after the root element');
  return root;
}

/** All elements named `name` in document order (depth first), including `root` itself. */
export function findAll(root: XmlElement, name: string): XmlElement[] {
  const out: XmlElement[] = [];
  const walk = (e: XmlElement) => {
    if (e.name === name) out.push(e);
    e.children.forEach(walk);
  };
  walk(root);
  return out;
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
