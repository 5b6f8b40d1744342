#!/usr/bin/env python3
"""Print import cycles among the modules of a Python package tree (default: src/).

usage: python3 scripts/import_cycles.py [SRC_DIR]
Reads `import x` / `from x import y` / relative imports with ast (nothing is executed), keeps the
edges between modules of the tree, and prints each strongly connected group of two or more
modules (a cycle), with the imports that tie it. Exit 1 when there is a cycle.
"""
import ast
import os
import sys

root = sys.argv[1] if len(sys.argv) > 1 else "src"
mods = {}
for d, _, files in os.walk(root):
    for f in files:
        if f.endswith(".py"):
            p = os.path.join(d, f)
            name = os.path.relpath(p, root)[:-3].replace(os.sep, ".")
            mods[name[:-9] if name.endswith(".__init__") else name] = p


def resolve(cur, node):
    pkg = cur if mods[cur].endswith("__init__.py") else cur.rpartition(".")[0]
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    base = node.module or ""
    if node.level:
        parts = pkg.split(".")
        parts = parts[: len(parts) - node.level + 1]
        base = ".".join(parts + ([base] if base else []))
    return [base] + [f"{base}.{a.name}" for a in node.names]


edges = {m: set() for m in mods}
for m, p in mods.items():
    for node in ast.walk(ast.parse(open(p, encoding="utf-8").read(), p)):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for t in resolve(m, node):
                while t and t not in mods:
                    t = t.rpartition(".")[0]
                if t and t != m:
                    edges[m].add(t)

index, low, stack, on, comps, n = {}, {}, [], set(), [], [0]
sys.setrecursionlimit(10000)


def visit(v):
    index[v] = low[v] = n[0]
    n[0] += 1
    stack.append(v)
    on.add(v)
    for w in edges[v]:
        if w not in index:
            visit(w)
            low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop()
            on.discard(w)
            comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            comps.append(sorted(comp))


for v in mods:
    if v not in index:
        visit(v)
for c in comps:
    print("import cycle:", ", ".join(c))
    for a in c:
        for b in sorted(edges[a] & set(c)):
            print(f"  {a} -> {b}")
print(f"{len(mods)} modules, {len(comps)} import cycle(s)")
sys.exit(1 if comps else 0)
