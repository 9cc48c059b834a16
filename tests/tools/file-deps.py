#!/usr/bin/python3
"""Which C files of a directory call functions defined in which others,
and whether that graph has a cycle.

usage: file-deps.py PREFIX_REGEX FILE...

A function counts when it is defined at the start of a line in one of the
FILEs with a name matching PREFIX_REGEX (e.g. 'recv_|fdop_|dcache_|fcache_')
and named in another FILE outside comments and 'struct NAME'.  Prints the
graph and exits 1 with the files of a cycle if there is one.
"""
import os
import re
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    prefix, files = sys.argv[1], sys.argv[2:]
    name_re = r"\b((?:%s)\w+)\b" % prefix
    defs = {}
    for f in files:
        for m in re.finditer(r"^[a-z][\w \*]*?\b((?:%s)\w+)\(" % prefix, open(f).read(), re.M):
            defs.setdefault(m.group(1), f)
    deps = {}
    for f in files:
        text = re.sub(r"/\*.*?\*/", "", open(f).read(), flags=re.S)
        text = re.sub(r"struct\s+\w+", "", text)
        deps[f] = sorted({defs[n] for n in re.findall(name_re, text)
                          if n in defs and defs[n] != f})
    for f in files:
        print(os.path.basename(f), "->", " ".join(os.path.basename(d) for d in deps[f]))

    state = {}

    def visit(f, stack):
        state[f] = 1
        for d in deps[f]:
            if state.get(d) == 1:
                return stack[stack.index(d):] + [d]
            if not state.get(d):
                cycle = visit(d, stack + [d])
                if cycle:
                    return cycle
        state[f] = 2
        return None

    for f in files:
        if not state.get(f):
            cycle = visit(f, [f])
            if cycle:
                print("cycle:", " -> ".join(os.path.basename(c) for c in cycle))
                sys.exit(1)


if __name__ == "__main__":
    main()
