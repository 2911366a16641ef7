"""Every C block of README.md and docs/*.md compiles and runs. A block with its
own main() is a program, built and run as it is. Any other block is a fragment
of one: it is built into a program of its own, after the setup the docs'
fragments assume (the example model examples/Books.json loaded as `model`,
`v1` and `v2` (v2 with an `isbn` attribute more), a coordinator `coordinator`
(also `c`) over books.sqlite, contexts `context` (also `ctx`) and `background`
(a private-queue context), a saved `book` of `book_entity`, `results` of a fetch
of every book, `err`, `state` and `token`); static functions it defines go
before main(). Run against the library the tests use (OBJECTGRAPH_LIBRARY)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import List, Tuple

import pytest

from conftest import REPO

DOCS = [REPO / "README.md"] + sorted((REPO / "docs").glob("*.md"))

SETUP = r"""
    og_error *err = NULL;
    og_model *model = og_model_load("Books.json", &err);
    og_model *v1 = og_model_load("Books.json", &err);
    og_model *v2 = og_model_load("Books.json", &err);
    og_entity_add_attribute(og_model_entity(v2, "Book", &err), "isbn", OG_ATTRIBUTE_STRING, &err);
    og_model *stack_model = og_model_load("Books.json", &err);
    og_coordinator *coordinator = og_coordinator_new(stack_model, &err), *c = coordinator;
    og_model_release(stack_model);
    og_coordinator_add_store(coordinator, "SQLite", "books.sqlite", &err);
    og_context *context = og_context_new(coordinator, &err), *ctx = context;
    og_context *background = og_context_new_with_type(coordinator, OG_CONCURRENCY_PRIVATE_QUEUE, &err);
    og_object *book = og_context_insert(context, "Book", &err);
    og_object_set_string(book, "title", "Strata", &err);
    og_object_set_int64(book, "pages", 287, &err);
    og_context_save(context, &err);
    og_entity *book_entity = og_model_entity(model, "Book", &err);
    og_fetch_request *every_book = og_fetch_request_new("Book", &err);
    og_results *results = og_context_fetch(context, every_book, &err);
    void *state = NULL;
    uint64_t token = 0;
    if (!model || !coordinator || !context || !background || !book || !results) {
        fprintf(stderr, "setup failed: %s\n", err ? og_error_message(err) : "");
        return 2;
    }
    (void)v1; (void)v2; (void)c; (void)ctx; (void)book_entity; (void)state; (void)token;
"""

HEADERS = "#include <objectgraph.h>\n#include <stdbool.h>\n#include <stdint.h>\n#include <stdio.h>\n" \
          "#include <stdlib.h>\n#include <string.h>\n"


def c_blocks(path: Path) -> List[Tuple[int, str]]:
    text = path.read_text(encoding="utf-8")
    return [(text[:m.start()].count("\n") + 2, m.group(1)) for m in re.finditer(r"```c\n(.*?)```", text, re.S)]


def split_functions(fragment: str) -> Tuple[str, str]:
    """(static function definitions, statements): a definition starts with a
    line `static ...(` and ends with a `}` alone at the start of a line (or the
    same line, for a one-line function)."""
    functions: List[str] = []
    body: List[str] = []
    lines = fragment.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if re.match(r"static [^=;]*\(", line) and not line.rstrip().endswith(";"):
            chunk = [line]
            while not (chunk[-1].startswith("}") or (len(chunk) == 1 and chunk[0].rstrip().endswith("}"))):
                i += 1
                chunk.append(lines[i])
            functions.extend(chunk)
        elif re.match(r"static [a-z_ ]+[ *]+[a-z_]+;", line):  # a static variable the functions share
            functions.append(line)
        else:
            body.append(line)
        i += 1
    return "\n".join(functions), "\n".join(body)


def program(line: int, code: str, source: str) -> str:
    if re.search(r"\bint main\s*\(", code):
        return f'#line {line} "{source}"\n{code}'
    functions, body = split_functions(code)
    return (HEADERS + f'#line {line} "{source}"\n{functions}\n\nint main(void) {{\n{SETUP}\n'
            f'    {{\n#line {line} "{source}"\n{body}\n    }}\n    return 0;\n}}\n')


CASES = [(p, line, code) for p in DOCS for line, code in c_blocks(p)]


@pytest.mark.parametrize("path,line,code", CASES, ids=[f"{p.name}:{line}" for p, line, _ in CASES])
def test_c_block_compiles_and_runs(path: Path, line: int, code: str, tmp_path) -> None:
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if compiler is None:
        pytest.fail("no C compiler")
    library = Path(os.environ["OBJECTGRAPH_LIBRARY"]).resolve()
    shutil.copy(REPO / "examples" / "Books.json", tmp_path / "Books.json")
    source = tmp_path / "block.c"
    source.write_text(program(line, code, path.name), encoding="utf-8")
    build = subprocess.run([compiler, "-std=c11", "-D_GNU_SOURCE", "-Werror=implicit-function-declaration",
                            "-Werror=return-type", "-I", str(REPO / "include"), str(source), str(library),
                            f"-Wl,-rpath,{library.parent}", "-o", str(tmp_path / "block")],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    run = subprocess.run([str(tmp_path / "block")], capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert run.returncode == 0, f"exit {run.returncode}\n{run.stdout}{run.stderr}"
