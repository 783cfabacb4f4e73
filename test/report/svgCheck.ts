/**
 * Structural checks every report SVG must pass, on top of XML well-formedness: an `<svg>` root in
 * the SVG namespace with `width`, `height` and a matching `viewBox`; `<title>` and `<desc>` first,
 * referenced by `aria-labelledby`; unique ids and every `url(#id)` resolving; finite, non-negative
 * geometry; path data without `NaN`/`Infinity`.
 */
import { expect } from 'vitest';
import { type XmlElement, findWhere, parseXml } from './xml.js';

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
      expect(dd, 'path data').toMatch(/^[MLHVZmlhvz0-9 .\-]*$/);
      expect(dd).not.toMatch(/NaN|Infinity/);
    }
  }
  return root;
}
