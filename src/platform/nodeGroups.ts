/**
 * Node groups: `count` identical nodes described once (a native platform entry with a `count`, a
 * SimGrid `<cluster>`, a Slurm `NodeName` line). A node given alone is a group of one. A group keeps
 * one description (its template) and a naming rule, never one object per node; `Platform` compiles the
 * groups into typed arrays (`nodeGroup`, `groupFirstNode`, `groupNodeCount`).
 *
 * Naming. Node `k` of a group (0-based) is named `prefix + (first + k) + suffix` (`raijin0` ...
 * `raijin3599`; SimGrid's `c-0.me` ... `c-99.me`), or `names[k]` when the names follow no such rule.
 * The rule is canonical (`namingOf`): a list of names that follows a rule is always stored as that rule,
 * so two descriptions of the same names are equal whatever file they came from.
 */

/** How the nodes of a group are named (see the module comment). */
export type NodeNaming = { prefix: string; first: number; suffix: string } | { names: readonly string[] };

/** `prefix`, a canonical decimal number, `suffix` without digits (the prefix ends with a non-digit or is empty). */
const RULE = /^(|.*\D)(0|[1-9]\d{0,14})(\D*)$/;

/** The canonical naming of `names` (a non-empty list): the rule they follow, or the list itself. */
export function namingOf(names: readonly string[]): NodeNaming {
  const m = RULE.exec(names[0]!);
  if (m) {
    const prefix = m[1]!;
    const first = Number(m[2]);
    const suffix = m[3]!;
    let k = 1;
    while (k < names.length && names[k] === `${prefix}${first + k}${suffix}`) k++;
    if (k === names.length) return { prefix, first, suffix };
  }
  return { names: [...names] };
}

/** The canonical naming of `count` nodes named `prefix + (first + k) + suffix` (`namingOf` of those names). */
export function ruleNaming(prefix: string, first: number, suffix: string, count: number): NodeNaming {
  const m = RULE.exec(`${prefix}${first}${suffix}`);
  if (m && m[1] === prefix && m[3] === suffix) return { prefix, first, suffix };
  return namingOf(Array.from({ length: count }, (_, k) => `${prefix}${first + k}${suffix}`));
}

/** The name of node `k` of a group named by `naming`. */
export function nodeNameOf(naming: NodeNaming, k: number): string {
  return 'names' in naming ? naming.names[k]! : `${naming.prefix}${naming.first + k}${naming.suffix}`;
}

/**
 * The name of a group given no name, from the index `first` (within its cluster) of its first node and
 * its node count: `node3` for one node (the node's own name), `node[4-7]` for several (Slurm's host list
 * of its nodes, which the native loader names `node4` ... `node7`).
 */
export function implicitGroupName(first: number, count: number): string {
  return count === 1 ? `node${first}` : `node[${first}-${first + count - 1}]`;
}
