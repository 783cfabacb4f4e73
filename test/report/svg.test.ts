import { describe, expect, it } from 'vitest';
import { escapeXml, fmt, fnv1a, formatTick, formatValue, hashColour, niceAxis, svgDocument } from '../../src/report/svg.js';
import { parseXml } from './svgCheck.js';

describe('report svg helpers', () => {
  it('escapes the five XML specials and replaces characters XML cannot carry', () => {
    expect(escapeXml(`<a href="x">&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;');
    expect(escapeXml('a\u0001b\u001fc\ud800d')).toBe('a\ufffdb\ufffdc\ufffdd');
    // Tab, newline and valid surrogate pairs are kept.
    expect(escapeXml('\t\n\ud83d\ude00')).toBe('\t\n\ud83d\ude00');
  });

  it('formats coordinates with 2 decimals and never -0', () => {
    expect(fmt(1.005)).toBe('1');
    expect(fmt(12.3456)).toBe('12.35');
    expect(fmt(-0.001)).toBe('0');
    expect(fmt(0.1 + 0.2)).toBe('0.3');
    expect(fmt(400)).toBe('400');
  });

  it('computes nice axes', () => {
    expect(niceAxis(0, 4.2, 5)).toEqual({ min: 0, max: 5, ticks: [0, 1, 2, 3, 4, 5], step: 1 });
    expect(niceAxis(0, 1, 4)).toEqual({ min: 0, max: 1, ticks: [0, 0.2, 0.4, 0.6, 0.8, 1], step: 0.2 });
    expect(niceAxis(-43.2, -1.1, 5).ticks).toEqual([-50, -40, -30, -20, -10, 0]);
    // Without widening the domain is kept and only inner ticks are returned.
    expect(niceAxis(3, 97, 4, false)).toEqual({ min: 3, max: 97, ticks: [20, 40, 60, 80], step: 20 });
    // Degenerate and non-finite domains still give an axis.
    expect(niceAxis(5, 5).ticks.length).toBeGreaterThan(1);
    expect(niceAxis(NaN, Infinity)).toMatchObject({ min: 0, max: 1 });
  });

  it('formats ticks with SI suffixes from 10,000 on and decimals following the step', () => {
    expect(formatTick(20000, 20000, 140000)).toBe('20k');
    expect(formatTick(1.5e9, 5e8, 2e9)).toBe('1.5G');
    expect(formatTick(0, 5e8, 2e9)).toBe('0');
    expect(formatTick(5000, 1000, 6000)).toBe('5000');
    expect(formatTick(0.6, 0.2)).toBe('0.6');
    expect(formatTick(0.05, 0.05)).toBe('0.05');
    expect(formatTick(-10, 10)).toBe('-10');
  });

  it('formats values with about 3 significant digits', () => {
    expect(formatValue(42.1)).toBe('42.1');
    expect(formatValue(0.7321)).toBe('0.732');
    expect(formatValue(5120)).toBe('5120');
    expect(formatValue(182400)).toBe('182k');
    expect(formatValue(1.92e9)).toBe('1.92G');
    expect(formatValue(1.9e9)).toBe('1.9G');
    expect(formatValue(-12345)).toBe('-12.3k');
    expect(formatValue(NaN)).toBe('n/a');
    expect(formatValue(0)).toBe('0');
  });

  it('hashes ids with FNV-1a to stable colours', () => {
    // Reference vectors of 32-bit FNV-1a.
    expect(fnv1a('')).toBe(0x811c9dc5);
    expect(fnv1a('a')).toBe(0xe40c292c);
    expect(fnv1a('foobar')).toBe(0xbf9cf968);
    expect(hashColour('17')).toBe(hashColour('17'));
    expect(hashColour('17')).toMatch(/^#[0-9a-f]{6}$/);
    const colours = new Set(Array.from({ length: 200 }, (_, i) => hashColour(String(i))));
    expect(colours.size).toBeGreaterThan(150);
  });

  it('frames a document with viewBox, size, title and desc', () => {
    const s = svgDocument({ width: 100, height: 50, title: 'T <1>', desc: 'D & d', idPrefix: 'x' }, '', '');
    const root = parseXml(s);
    expect(root.attrs).toMatchObject({ width: '100', height: '50', viewBox: '0 0 100 50', role: 'img', 'aria-labelledby': 'x-title x-desc' });
    expect(root.children[0]).toMatchObject({ name: 'title', text: 'T <1>' });
    expect(root.children[1]).toMatchObject({ name: 'desc', text: 'D & d' });
  });
});

describe('the test XML checker', () => {
  // The checker guards every SVG test, so it must itself reject what is not well-formed.
  it.each([
    ['unclosed element', '<svg><g></svg>'],
    ['bare ampersand', '<svg>a & b</svg>'],
    ['unknown entity', '<svg>&nbsp;</svg>'],
    ['< in attribute', '<svg a="<"/>'],
    ['duplicate attribute', '<svg a="1" a="2"/>'],
    ['unquoted attribute', '<svg a=1/>'],
    ['two roots', '<svg/><svg/>'],
    ['control character', '<svg>\u0001</svg>'],
    ['-- in comment', '<svg><!-- a -- b --></svg>'],
    ['no whitespace between attributes', '<svg a="1"b="2"/>'],
    // the rules fast-xml-parser's XMLValidator lets through, checked by parseXml on its tokens
    ['text after the root', '<svg/>x'],
    ['two roots (self-closing)', '<svg/><g/>'],
    ['a DOCTYPE', '<!DOCTYPE svg><svg/>'],
    ['bare ampersand in an attribute', '<svg a="x & y"/>'],
    ['unknown entity in an attribute', '<svg a="&nbsp;"/>'],
    ['"]]>" in text', '<svg>a]]>b</svg>'],
    ['lone surrogate', '<svg>\ud800</svg>'],
    ['reference to a forbidden character', '<svg>&#1;</svg>'],
    ['comment ending in "-"', '<svg><!-- a ---></svg>'],
    ['malformed declaration', '<?xml versio="1.0"?><svg/>'],
  ])('rejects %s', (_, src) => {
    expect(() => parseXml(src)).toThrow(/XML error/);
  });

  it('accepts declarations, comments, references and CDATA', () => {
    const e = parseXml(`<?xml version="1.0" encoding="UTF-8"?>\n<!-- c --><r a='&quot;&#60;&#x3e;'><![CDATA[<&>]]>&amp;<c/></r>\n`);
    expect(e).toMatchObject({ name: 'r', attrs: { a: '"<>' }, text: '<&>&' });
    expect(e.children[0]!.name).toBe('c');
  });
});
