#!/usr/bin/env python3
"""A generated programming class: many students' Java solutions to the same few tasks.

usage: python bench/codeclass.py OUT [--tasks 10] [--students 200] [--seed 11]
       (or python bench/corpora.py codeclass OUT ...)

Writes OUT/tNN_sNNNN.java, one file per task and student (2,000 files, ~3.3 KB each, ~6.6 MB by
default), and OUT.copies.csv: (document, source) for each planted copy. Same seed, same bytes.

How a file is made (procedurally, nothing is copied from elsewhere):
- Every task has three reference approaches: a class of 3-5 methods whose bodies are random
  statement trees (declarations, updates, if/else, for and while loops, calls, prints, returns)
  over numbers and an array or a List (each task its own element type, container and print
  idiom), plus a ``main`` that reads the input with a Scanner, as every
  student writes it. The instructor's header comment of the task is in every solution.
- A student picks an approach and writes it their own way: about a quarter of the statements
  replaced by their own, some dropped or added, methods in their own order, their own names
  for the variables, their own indentation, braces, comments and loop idioms.
- One solution in 12 is a copy of a classmate's solution to the same task, disguised as
  IR-Plag's levels L1-L4 would: new names, layout and comments, a few statements changed.
So, as in a real class, nearly every pair of solutions to one task shares some passages, and the
boilerplate (header, input loop) is shared by all: the all-pairs worst case of issue 20.
"""
from __future__ import annotations

import argparse
import random
from pathlib import Path

NAMES = ["count", "total", "sum", "result", "value", "index", "temp", "best", "current", "acc",
         "left", "right", "mid", "step", "limit", "score", "size", "pos", "prev", "next", "diff",
         "carry", "low", "high", "answer", "found", "level", "width", "depth", "offset"]
METHODS = ["solve", "compute", "process", "check", "helper", "findBest", "countItems", "update",
           "search", "merge", "reduce", "scan", "evaluate", "collect", "balance", "transform"]
TASKS = ["Anagrams", "BankAccount", "Calendar", "Dijkstra", "Election", "Fibonacci", "GradeBook",
         "Histogram", "Inventory", "Josephus", "Knapsack", "LongestRun", "Matrix", "NQueens",
         "Palindromes", "Queue", "RomanNumerals", "Sudoku", "TicTacToe", "WordCount"]
COMMENTS = ["compute the answer", "loop over the input", "TODO check edge cases", "update the total",
            "base case", "this part was tricky", "move to the next element", "keep the best so far",
            "handle the empty case", "see the lecture notes", "helper for the main loop", "debug",
            "from the assignment description", "swap the values", "check the bounds first"]
OPS = ["+", "-", "*", "%", "/"]
# each task's own dialect: element type, container, how results are printed
TYPES = [("int", "Integer", "nextInt"), ("long", "Long", "nextLong"), ("double", "Double", "nextDouble")]
PRINTS = ['System.out.println("{label}: " + {v});', 'System.out.printf("{label}: %s%n", {v});',
          'System.out.print("{label}: " + {v} + "\\n");']


def dialect(rng: random.Random) -> dict:
    """How one task's solutions look: int/long/double, an array or a List, one print idiom."""
    typ, box, read = rng.choice(TYPES)
    if rng.random() < 0.5:
        return {"type": typ, "param": typ + "[]", "get": "{a}[{i} % {a}.length]", "len": "{a}.length",
                "new": f"new {typ}[{{n}}]", "put": "{a}[{i}] = {x};", "read": read, "print": rng.choice(PRINTS),
                "imports": ["import java.util.Scanner;"]}
    return {"type": typ, "param": f"List<{box}>", "get": "{a}.get({i} % {a}.size())", "len": "{a}.size()",
            "new": "new ArrayList<>()", "put": "{a}.add({x});", "read": read, "print": rng.choice(PRINTS),
            "imports": ["import java.util.ArrayList;", "import java.util.List;", "import java.util.Scanner;"]}
CMPS = ["<", ">", "<=", ">=", "==", "!="]


class Tree:
    """Random statement trees over symbolic variables (ints: 0..; the array: 'a'; loop vars)."""

    def __init__(self, rng: random.Random, methods: int):
        self.rng = rng
        self.methods = methods

    def expr(self, scope: list, depth: int = 0):
        r = self.rng.random()
        if depth >= 2 or r < 0.35:
            return ("var", self.rng.choice(scope)) if scope and r < 0.25 else ("num", self.rng.randint(0, 9))
        if r < 0.5:
            return ("idx", self.rng.choice(scope) if scope else ("num", 0))
        if r < 0.6:
            return ("call", self.rng.randrange(self.methods), self.expr(scope, depth + 1))
        if r < 0.7:
            return ("max", self.expr(scope, depth + 1), self.expr(scope, depth + 1))
        return ("bin", self.rng.choice(OPS), self.expr(scope, depth + 1), self.expr(scope, depth + 1))

    def cond(self, scope: list):
        c = ("cmp", self.rng.choice(CMPS), self.expr(scope, 1), self.expr(scope, 1))
        return ("and", c, self.cond(scope)) if self.rng.random() < 0.2 else c

    def stmt(self, scope: list, depth: int):
        r = self.rng.random()
        if r < 0.25 or not scope:
            v = len(scope) + 100 * depth + self.rng.randrange(3) * 1000
            scope.append(v)
            return ("decl", v, self.expr(scope[:-1]))
        if r < 0.45:
            return ("set", self.rng.choice(scope), self.rng.choice(["=", "+=", "-=", "*="]), self.expr(scope))
        if r < 0.55:
            return ("print", self.rng.choice(NAMES), self.rng.choice(scope))
        if depth >= 2:
            return ("set", self.rng.choice(scope), "+=", self.expr(scope))
        if r < 0.7:
            return ("if", self.cond(scope), self.block(list(scope), depth + 1, 1, 2),
                    self.block(list(scope), depth + 1, 1, 2) if self.rng.random() < 0.4 else None)
        if r < 0.88:
            loop = 10_000 + depth
            return ("for", loop, self.block(scope + [loop], depth + 1, 1, 3))
        return ("while", self.cond(scope), self.block(list(scope), depth + 1, 1, 2))

    def block(self, scope: list, depth: int, lo: int, hi: int) -> list:
        return [self.stmt(scope, depth) for _ in range(self.rng.randint(lo, hi))]

    def method(self, m: int, lo: int, hi: int):
        scope = [0, 1][: self.rng.randint(1, 2)]
        return ("method", m, len(scope), self.block(list(scope), 0, lo, hi) + [("ret", self.expr(scope))])


def mutate(tree: Tree, body: list, rate: float, scope: list, depth: int = 0) -> list:
    """A student's version of a block: statements replaced, dropped or added at ``rate``."""
    out = []
    for s in body:
        r = tree.rng.random()
        if s[0] == "ret":
            out.append(s)
            continue
        if r < rate * 0.15:
            continue
        if r < rate and s[0] not in ("if", "for", "while"):
            s = tree.stmt(list(scope), min(depth, 2))
        elif s[0] == "if":
            s = ("if", s[1], mutate(tree, s[2], rate, scope, depth + 1),
                 s[3] and mutate(tree, s[3], rate, scope, depth + 1))
        elif s[0] in ("for", "while"):
            s = (s[0], s[1], mutate(tree, s[2], rate, scope + ([s[1]] if s[0] == "for" else []), depth + 1))
        if s[0] == "decl":
            scope.append(s[1])
        out.append(s)
        if tree.rng.random() < rate * 0.3:
            out.append(tree.stmt(list(scope), min(depth, 2)))
    return out


class Style:
    """How one student writes: names, indentation, braces, comments, loop idioms."""

    def __init__(self, rng: random.Random, task: dict):
        self.rng = rng
        self.d = task
        self.indent = rng.choice(["    ", "    ", "  ", "\t"])
        self.brace_own_line = rng.random() < 0.2
        self.comment_rate = rng.choice([0.0, 0.05, 0.15, 0.3])
        self.incr = rng.choice(["{v}++", "{v}++", "{v} += 1", "++{v}"])
        pool = NAMES[:]
        rng.shuffle(pool)
        self.names = pool
        self.loop = rng.choice(["i", "j", "k", "idx"])
        self.array = rng.choice(["a", "arr", "nums", "data", "values"])
        self.methods = rng.sample(METHODS, len(METHODS))
        self.sc = rng.choice(["sc", "in", "scanner", "input"])

    def var(self, v) -> str:
        if v >= 10_000:
            return self.loop if v == 10_000 else self.loop + str(v - 10_000)
        return self.names[v % len(self.names)] + ("" if v < len(self.names) else str(v // 100 % 10))


def render_expr(e, s: Style) -> str:
    kind = e[0]
    if kind == "num":
        return str(e[1])
    if kind == "var":
        return s.var(e[1])
    if kind == "idx":
        inner = render_expr(e[1], s) if isinstance(e[1], tuple) else s.var(e[1])
        return s.d["get"].format(a=s.array, i=inner)
    if kind == "call":
        return f"{s.methods[e[1]]}({s.array}, {render_expr(e[2], s)})"
    if kind == "max":
        return f"Math.max({render_expr(e[1], s)}, {render_expr(e[2], s)})"
    if kind == "bin":
        right = render_expr(e[3], s)
        if e[1] in "/%":
            right = f"({right} == 0 ? 1 : {right})"
        return f"({render_expr(e[2], s)} {e[1]} {right})"
    if kind == "cmp":
        return f"{render_expr(e[2], s)} {e[1]} {render_expr(e[3], s)}"
    return f"{render_expr(e[1], s)} && {render_expr(e[2], s)}"  # and


def render_block(body: list, s: Style, depth: int, out: list) -> None:
    pad = s.indent * depth
    for st in body:
        if s.rng.random() < s.comment_rate:
            out.append(f"{pad}// {s.rng.choice(COMMENTS)}")
        kind = st[0]
        if kind == "decl":
            out.append(f"{pad}{s.d['type']} {s.var(st[1])} = {render_expr(st[2], s)};")
        elif kind == "set":
            out.append(f"{pad}{s.var(st[1])} {st[2]} {render_expr(st[3], s)};")
        elif kind == "print":
            out.append(pad + s.d["print"].format(label=st[1], v=s.var(st[2])))
        elif kind == "ret":
            out.append(f"{pad}return {render_expr(st[1], s)};")
        elif kind == "if":
            open_block(f"if ({render_expr(st[1], s)})", s, depth, out)
            render_block(st[2], s, depth + 1, out)
            if st[3]:
                out.append(f"{pad}}}")
                open_block("else", s, depth, out)
                render_block(st[3], s, depth + 1, out)
            out.append(f"{pad}}}")
        elif kind == "for":
            v = s.var(st[1])
            size = s.d["len"].format(a=s.array)
            open_block(f"for (int {v} = 0; {v} < {size}; {s.incr.format(v=v)})", s, depth, out)
            render_block(st[2], s, depth + 1, out)
            out.append(f"{pad}}}")
        elif kind == "while":
            guard = s.var(st[1][2][1]) if st[1][2][0] == "var" else "guard"
            open_block(f"while ({render_expr(st[1], s)})", s, depth, out)
            render_block(st[2], s, depth + 1, out)
            out.append(f"{pad}{s.indent}break; // {guard}")
            out.append(f"{pad}}}")


def open_block(head: str, s: Style, depth: int, out: list) -> None:
    pad = s.indent * depth
    out.extend([f"{pad}{head}", f"{pad}{{"] if s.brace_own_line else [f"{pad}{head} {{"])


def render(task: int, title: str, methods: list, s: Style, student: int) -> str:
    out = [f"/* CS 101, assignment {task + 1}: {title}.", " * Read n and n integers from standard input,",
           " * print the results of each step. Do not change the class name. */", ""]
    if s.rng.random() < 0.7:
        out.insert(0, f"// student {student:04d}")
    out += s.d["imports"] + ["", ""]
    open_block(f"public class {title}", s, 0, out)
    for m in methods:
        _, number, nparams, body = m
        params = ", ".join([f"{s.d['param']} {s.array}"] + [f"{s.d['type']} {s.var(p)}" for p in range(nparams)])
        out.append("")
        open_block(f"static {s.d['type']} {s.methods[number]}({params})", s, 1, out)
        render_block(body, s, 2, out)
        out.append(f"{s.indent}}}")
    out.append("")
    open_block("public static void main(String[] args)", s, 1, out)
    pad, n = s.indent * 2, s.var(0)
    out += [f"{pad}Scanner {s.sc} = new Scanner(System.in);", f"{pad}int {n} = {s.sc}.nextInt();",
            f"{pad}{s.d['param']} {s.array} = {s.d['new'].format(n=n)};"]
    open_block(f"for (int {s.loop} = 0; {s.loop} < {n}; {s.incr.format(v=s.loop)})", s, 2, out)
    out += [pad + s.indent + s.d["put"].format(a=s.array, i=s.loop, x=f"{s.sc}.{s.d['read']}()"), f"{pad}}}"]
    for m in methods:
        out.append(f'{pad}System.out.println({s.methods[m[1]]}({s.array}, {n}));')
    out += [f"{s.indent}}}", "}", ""]
    return "\n".join(out)


def build_class(out: Path, tasks: int = 10, students: int = 200, seed: int = 11) -> dict:
    """Write the class into ``out``; returns a summary (files, bytes, copies)."""
    rng = random.Random(seed)
    out.mkdir(parents=True, exist_ok=True)
    size, copies = 0, []
    for t in range(tasks):
        title = TASKS[t % len(TASKS)] + (str(t // len(TASKS)) if t >= len(TASKS) else "")
        nmeth = rng.randint(3, 4)
        task = dialect(rng)
        approaches = []
        for _ in range(3):
            tree = Tree(rng, nmeth)
            approaches.append([tree.method(m, 3, 6) for m in range(nmeth)])
        written: list[list] = []
        for st in range(students):
            srng = random.Random(rng.getrandbits(64))
            style = Style(srng, task)
            if written and srng.random() < 1 / 12:
                source = srng.randrange(len(written))
                methods = [("method", m[1], m[2], mutate(Tree(srng, nmeth), m[3], 0.05, list(range(m[2]))))
                           for m in written[source]]
                copies.append((f"t{t:02d}_s{st:04d}.java", f"t{t:02d}_s{source:04d}.java"))
            else:
                tree = Tree(srng, nmeth)
                methods = [("method", m[1], m[2], mutate(tree, m[3], 0.25, list(range(m[2]))))
                           for m in srng.choice(approaches)]
            if srng.random() < 0.5:
                srng.shuffle(methods)
            written.append(methods)
            data = render(t, title, methods, style, st).encode()
            (out / f"t{t:02d}_s{st:04d}.java").write_bytes(data)
            size += len(data)
    path = out.parent / (out.name + ".copies.csv")
    path.write_text("document,source\n" + "".join(f"{a},{b}\n" for a, b in copies))
    return {"files": tasks * students, "bytes": size, "copies": len(copies)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path, help="folder to write")
    ap.add_argument("--tasks", type=int, default=10)
    ap.add_argument("--students", type=int, default=200)
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args()
    if args.out.exists() and any(args.out.iterdir()):
        raise SystemExit(f"{args.out} exists and is not empty")
    print(build_class(args.out, args.tasks, args.students, args.seed))


if __name__ == "__main__":
    main()
